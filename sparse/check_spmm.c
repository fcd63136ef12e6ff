/*
 * check_spmm.c — verifiers of mg_spmm and mg_sddmm: plain serial products in double over the CSR
 * (A^T B by scattering A's rows, so neither the CSC nor the engines' code is involved), compared
 * entry by entry with mg_check_spmv's rule (check_spmv.c): within rtol * (|alpha| sum of the
 * products' magnitudes + |beta C_in|) + atol, rtol 1e-5 for float and 1e-12 for double (1.25e-3
 * for float with opts->tf32: the GPU's tensor-core products).
 *
 * A B is made a row of C at a time (its sums and scales, 2 K doubles), reading each B row it needs
 * whole. A^T B scatters, so its reference holds a block of C's columns for every row (at most
 * REF_BYTES of sums and scales, at least one column), each block one pass over A, and checking a
 * tall C with many columns needs no second copy of it. (A B once went that way too: with C's rows
 * in the millions a block was one column, so K passes over A, each reading B a column at a time,
 * a cache miss an entry: minutes for a 16M-entry matrix at K 128.)
 */
#include "sparse/sparse_internal.h"

#include <math.h>

#define REF_BYTES ((size_t)64 << 20)

/* C_in, needed when beta is not 0: a live dense of C's shape and type, its values on the host. */
static mg_status check_c_in(mg_context ctx, const char *who, const mg_dense C_in, const mg_dense C) {
    char what[96];
    snprintf(what, sizeof what, "%s: C_in", who);
    mg_status status = mg__check_dense(ctx, C_in, what);
    if (status != MG_SUCCESS) return status;
    if (C_in->type != C->type || C_in->rows != C->rows || C_in->cols != C->cols)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: C_in (%u x %u) must have C's shape (%u x %u) and type", who,
                         C_in->rows, C_in->cols, C->rows, C->cols);
    return mg__dense_need_host(ctx, C_in);
}

/* The first entry of C off the reference, in row-major order (at == SIZE_MAX: none yet). */
typedef struct {
    size_t at;
    double got, want, tol;
} spmm_miss;

/* Whether C's entry at (C_in's too when beta is not 0) is off the reference alpha sum, whose
 * products' magnitudes add to scale; the first miss is kept in m. */
static bool spmm_entry_off(const mg_spmm_options *o, const mg_dense C_in, const mg_dense C, size_t at,
                           double sum, double scale, double rtol, double atol, spmm_miss *m) {
    double want = o->alpha * sum, mag = fabs(o->alpha) * scale;
    if (o->beta != 0) {
        want += o->beta * mg__check_dense_at(C_in, at);
        mag += fabs(o->beta * mg__check_dense_at(C_in, at));
    }
    const double got = mg__check_dense_at(C, at), tol = rtol * mag + atol;
    if (mg__check_close(MG_SEMIRING_PLUS_TIMES, want, got, tol)) return false;
    if (at < m->at) *m = (spmm_miss){at, got, want, tol};
    return true;
}

mg_status mg_check_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, const mg_dense C_in,
                        const mg_dense C, const mg_spmm_options *opts) {
    mg_status status = mg__check_context(ctx);
    double *sum = NULL, *scale = NULL;
    if (status != MG_SUCCESS) return status;
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    if (opts != NULL) o = *opts;
    MG__TRY(mg__spmm_check_args(ctx, "mg_check_spmm", A, B, C, &o));
    if (o.beta != 0) MG__TRY(check_c_in(ctx, "mg_check_spmm", C_in, C));
    MG__TRY(mg__dense_need_host(ctx, B));
    MG__TRY(mg__dense_need_host(ctx, C));

    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    MG__TRY(mg_matrix_csr(A, &off, &idx, &vals));
    const size_t out_n = C->rows, K = C->cols;
    /* A B: one row of K columns; A^T B: every row, a block of columns */
    const size_t rows = o.transpose ? out_n : 1;
    size_t block = REF_BYTES / (2 * sizeof(double) * (rows > 0 ? rows : 1));
    block = block < 1 ? 1 : block > K ? K : block;
    sum = mg__malloc(mg__mul_size(rows, block * sizeof *sum));
    scale = mg__malloc(mg__mul_size(rows, block * sizeof *scale));
    if (sum == NULL || scale == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_check_spmm: out of memory for the reference (%zu rows x %zu columns)", rows,
                 block);

    /* TF32 products: each of A's and B's values rounded to 10 bits of mantissa (at most 2^-11
     * of itself), so a product within 2^-10 of its magnitude, plus float's sums */
    const double rtol = o.tf32 && B->type == MG_FLOAT ? 1.25e-3 : mg__check_rtol(B->type);
    const double atol = mg__check_atol(B->type);
    spmm_miss miss = {SIZE_MAX, 0, 0, 0};
    if (!o.transpose) {
        for (uint32_t r = 0; r < A->rows && miss.at == SIZE_MAX; r++) {
            memset(sum, 0, K * sizeof *sum);
            memset(scale, 0, K * sizeof *scale);
            for (uint64_t e = off[r]; e < off[r + 1]; e++) {
                const double a = mg__check_value_at(A, vals, e, B->type);
                for (size_t q = 0; q < K; q++) {
                    const double p = a * mg__check_dense_at(B, idx[e] * K + q);
                    sum[q] += p;
                    scale[q] += fabs(p);
                }
            }
            for (size_t q = 0; q < K; q++)
                if (spmm_entry_off(&o, C_in, C, r * K + q, sum[q], scale[q], rtol, atol, &miss)) break;
        }
    } else {
        for (size_t k0 = 0; k0 < K; k0 += block) {
            const size_t w = K - k0 < block ? K - k0 : block;
            memset(sum, 0, out_n * w * sizeof *sum);
            memset(scale, 0, out_n * w * sizeof *scale);
            for (uint32_t r = 0; r < A->rows; r++)
                for (uint64_t e = off[r]; e < off[r + 1]; e++) {
                    const double a = mg__check_value_at(A, vals, e, B->type);
                    for (size_t q = 0; q < w; q++) {
                        const double p = a * mg__check_dense_at(B, r * K + k0 + q);
                        sum[idx[e] * w + q] += p;
                        scale[idx[e] * w + q] += fabs(p);
                    }
                }
            for (size_t i = 0; i < out_n && i * K + k0 < miss.at; i++)
                for (size_t q = 0; q < w; q++)
                    if (spmm_entry_off(&o, C_in, C, i * K + k0 + q, sum[i * w + q], scale[i * w + q], rtol,
                                       atol, &miss))
                        break;
        }
    }
    if (miss.at != SIZE_MAX)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_check_spmm: C[%zu][%zu] = %.17g but the serial%s product gives %.17g "
                 "(tolerance %.3g)",
                 miss.at / K, miss.at % K, miss.got, o.transpose ? " transposed" : "", miss.want, miss.tol);

cleanup:
    mg__free(sum);
    mg__free(scale);
    return status;
}

mg_status mg_check_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B,
                         const mg_dense C_in, const mg_dense C, const mg_sddmm_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg_sddmm_options o;
    mg_sddmm_options_init(&o);
    if (opts != NULL) o = *opts;
    MG__TRY(mg__sddmm_check_args(ctx, "mg_check_sddmm", S, A, B, C, &o));
    if (o.beta != 0) MG__TRY(check_c_in(ctx, "mg_check_sddmm", C_in, C));
    MG__TRY(mg__dense_need_host(ctx, A));
    MG__TRY(mg__dense_need_host(ctx, B));
    MG__TRY(mg__dense_need_host(ctx, C));

    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    MG__TRY(mg_matrix_csr(S, &off, &idx, &vals));
    const size_t K = A->cols;
    const double rtol = mg__check_rtol(A->type), atol = mg__check_atol(A->type);
    for (uint32_t r = 0; r < S->rows; r++)
        for (uint64_t e = off[r]; e < off[r + 1]; e++) {
            double dot = 0, mag = 0;
            for (size_t k = 0; k < K; k++) {
                const double p = mg__check_dense_at(A, r * K + k) * mg__check_dense_at(B, idx[e] * K + k);
                dot += p;
                mag += fabs(p);
            }
            const double s = mg__check_value_at(S, vals, e, A->type);
            double want = o.alpha * s * dot;
            mag *= fabs(o.alpha * s);
            if (o.beta != 0) {
                want += o.beta * mg__check_dense_at(C_in, e);
                mag += fabs(o.beta * mg__check_dense_at(C_in, e));
            }
            const double got = mg__check_dense_at(C, e), tol = rtol * mag + atol;
            if (!mg__check_close(MG_SEMIRING_PLUS_TIMES, want, got, tol))
                MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                         "mg_check_sddmm: C[%llu], S's entry (%u, %u), = %.17g but the serial "
                         "SDDMM gives %.17g (tolerance %.3g)",
                         (unsigned long long)e, r, idx[e], got, want, tol);
        }

cleanup:
    return status;
}
