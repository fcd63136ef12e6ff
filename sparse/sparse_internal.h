/*
 * sparse_internal.h — what the sparse layer's files share (internal).
 *
 * The public calls (sparse/spmv.c, sparse/spmm.c, sparse/cg.c) check every argument and pick the
 * backend from the context; the engines below take checked arguments. The CPU engines are
 * sparse/spmv_cpu.c, sparse/spmm_cpu.c and sparse/spgemm_cpu.c; the GPU engine is sparse/spmv_gpu.cu, sparse/cg_gpu.cu,
 * sparse/spmm_gpu.cu and sparse/spgemm_gpu.cu in CUDA builds, and sparse_gpu_fallback.c (MG_UNAVAILABLE) without CUDA.
 */
#ifndef MG_SPARSE_INTERNAL_H
#define MG_SPARSE_INTERNAL_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = A x (or A^T x) over opts->semiring with alpha/beta, on OpenMP threads; x's values on the host.
 * A^T uses the CSC (built on first use). Writes y only when it succeeds. */
mg_status mg__cpu_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                       const mg_spmv_options *opts);

/* The same on the device: A's device form is built on first use and cached on A; x moves to the
 * device if it is not there; y is left on the device (on_device). Returns once the kernels are
 * queued (mg_context_finish waits for them). */
mg_status mg__gpu_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                       const mg_spmv_options *opts);

/* Conjugate gradients on the device for a square A already checked symmetric; inv_diag: rows
 * values of 1 / A(i,i) for Jacobi, or NULL. x holds the initial guess; on MG_BREAKDOWN it is left
 * as on entry. Fills opts' outputs (iterations, residual, seconds, residuals[]). */
mg_status mg__gpu_cg(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x,
                     const double *inv_diag, mg_cg_options *opts);

/* C = alpha op(A) B + beta C, and the SDDMM (mg_spmm / mg_sddmm's checked arguments), on OpenMP
 * threads (sparse/spmm_cpu.c) and on the device (sparse/spmm_gpu.cu: A's SpMM form built on first
 * use and cached on A, B moved to the device, C left there; they return once the kernels are
 * queued). Each writes C only when it succeeds. */
mg_status mg__cpu_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                       const mg_spmm_options *opts);
mg_status mg__gpu_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                       const mg_spmm_options *opts);
mg_status mg__cpu_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B,
                        mg_dense C, const mg_sddmm_options *opts);
mg_status mg__gpu_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B,
                        mg_dense C, const mg_sddmm_options *opts);

/* *C = A B (mg_spgemm's checked arguments) on OpenMP threads (sparse/spgemm_cpu.c) and on the
 * device (sparse/spgemm_gpu.cu: C copied back to a host matrix; opts->device_bytes written). Each
 * sets *C only when it succeeds. */
mg_status mg__cpu_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, mg_matrix *C,
                         const mg_spgemm_options *opts);
mg_status mg__gpu_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, mg_matrix *C,
                         const mg_spgemm_options *opts);

/* mg_spmv's argument checks (sparse/spmv.c), shared with its verifier; `who` names the call in the
 * message. */
mg_status mg__spmv_check_args(mg_context ctx, const char *who, const mg_matrix A, const mg_dense x,
                              const mg_dense y, const mg_spmv_options *opts);
/* mg_spgemm's argument checks (sparse/spgemm.c), shared with its verifier; `who` names the call. */
mg_status mg__spgemm_check_args(mg_context ctx, const char *who, const mg_matrix A,
                                const mg_matrix B, const mg_spgemm_options *opts);
/* "plus-times", "min-plus", "max-times", "or-and" ("?" out of range), for messages. */
const char *mg__semiring_name(mg_semiring s);

/* mg_spmm's and mg_sddmm's argument checks (sparse/spmm.c), shared with their verifiers; `who`
 * names the call in the message. */
mg_status mg__spmm_check_args(mg_context ctx, const char *who, const mg_matrix A, const mg_dense B,
                              const mg_dense C, const mg_spmm_options *opts);
mg_status mg__sddmm_check_args(mg_context ctx, const char *who, const mg_matrix S,
                               const mg_dense A, const mg_dense B, const mg_dense C,
                               const mg_sddmm_options *opts);

/* The verifiers' shared pieces (sparse/check_spmv.c): A's value at CSR entry e converted to type t
 * (1 for a pattern); X's i-th value in memory order; the tolerance rule, |want - got| <= rtol *
 * (sum of the terms' magnitudes) + atol, with NaN matching NaN, infinities exact and or-and exact. */
double mg__check_value_at(const mg_matrix A, const void *vals, uint64_t e, mg_type t);
double mg__check_dense_at(const mg_dense X, size_t i);
double mg__check_rtol(mg_type t);
double mg__check_atol(mg_type t);
bool mg__check_close(mg_semiring s, double want, double got, double tol);
/* The serial reference for one output entry and the scale its tolerance is relative to; *r (+)= a
 * (*) x over the semiring, the value starting at the semiring's identity and the scale at 0. */
typedef struct {
    double value, scale;
} mg__check_ref;
void mg__check_accumulate(mg__check_ref *r, mg_semiring s, double a, double x);

/* op(A) as a CSR (sparse/spmv_cpu.c): A's CSR, or for the transpose its CSC (built on first use),
 * with op(A)'s row count. */
mg_status mg__matrix_op(mg_context ctx, const mg_matrix A, bool transpose, uint32_t *rows,
                        const uint64_t **offsets, const uint32_t **indices, const void **values);

/* Merge-based CSR split (Merrill and Garland, SC 2016; sparse/spmv_cpu.c): the rows' ends and the
 * nonzeros merged into one list of rows + nnz steps; at step d of it, *row rows are complete and
 * *edge entries consumed (*row + *edge = d). Threads taking equal ranges of d get equal work
 * whatever the degrees. */
void mg__merge_path_split(const uint64_t *offsets, uint32_t rows, uint64_t nnz, uint64_t d,
                          uint32_t *row, uint64_t *edge);

#ifdef __cplusplus
}
#endif
#endif /* MG_SPARSE_INTERNAL_H */
