/*
 * bench_cusparse.h — the checks the GPU benchmarks against cuSPARSE (bench_spmv.c, bench_spmm.c,
 * bench_dense.c) share: CS and CUDA exit naming the call and the line. Include after
 * bench_common.h (BENCH_NAME), in builds with cuSPARSE (MG_BENCH_CUSPARSE).
 */
#ifndef MG_BENCH_CUSPARSE_H
#define MG_BENCH_CUSPARSE_H

#include <cuda_runtime_api.h>
#include <cusparse.h>

#define CS(call)                                                                                   \
    do {                                                                                           \
        const cusparseStatus_t s_ = (call);                                                        \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, BENCH_NAME ": %s: %s (" BENCH_NAME ".c:%d)\n", #call,                 \
                    cusparseGetErrorString(s_), __LINE__);                                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CUDA(call)                                                                                 \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, BENCH_NAME ": %s: %s (" BENCH_NAME ".c:%d)\n", #call,                 \
                    cudaGetErrorString(e_), __LINE__);                                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
