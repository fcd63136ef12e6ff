/*
 * sparse_gpu_fallback.c — the sparse layer's GPU entry points for a build without CUDA: each
 * reports MG_UNAVAILABLE, so the public calls, the CLI and the tests link in CPU-only builds. With
 * CUDA the real ones are in spmv_gpu.cu, cg_gpu.cu, spmm_gpu.cu and spgemm_gpu.cu.
 */
#include "sparse/sparse_internal.h"

#ifndef MG_HAVE_CUDA

mg_status mg__gpu_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                       const mg_spmv_options *opts) {
    (void)A;
    (void)x;
    (void)y;
    (void)opts;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_spmv: this build has no CUDA backend");
}

mg_status mg__gpu_cg(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x,
                     const double *inv_diag, mg_cg_options *opts) {
    (void)A;
    (void)b;
    (void)x;
    (void)inv_diag;
    (void)opts;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_cg: this build has no CUDA backend");
}

mg_status mg_matrix_gpu_prepare(mg_context ctx, const mg_matrix A, mg_gpu_matrix_info *info) {
    (void)A;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg_matrix_gpu_prepare: this build has no CUDA backend");
}

mg_status mg__gpu_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                       const mg_spmm_options *opts) {
    (void)A;
    (void)B;
    (void)C;
    (void)opts;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_spmm: this build has no CUDA backend");
}

mg_status mg__gpu_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B,
                        mg_dense C, const mg_sddmm_options *opts) {
    (void)S;
    (void)A;
    (void)B;
    (void)C;
    (void)opts;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_sddmm: this build has no CUDA backend");
}

mg_status mg_matrix_gpu_prepare_spmm(mg_context ctx, const mg_matrix A, uint32_t k,
                                     const mg_spmm_options *opts, mg_gpu_matrix_info *info) {
    (void)A;
    (void)k;
    (void)opts;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE,
                     "mg_matrix_gpu_prepare_spmm: this build has no CUDA backend");
}

mg_status mg__gpu_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, mg_matrix *C,
                         const mg_spgemm_options *opts) {
    (void)A;
    (void)B;
    (void)C;
    (void)opts;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_spgemm: this build has no CUDA backend");
}

#endif
