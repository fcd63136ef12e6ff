/*
 * spmm.c — mg_spmm (sparse x dense) and mg_sddmm (sampled dense x dense), the public calls: check
 * every argument, naming the one that is wrong, then hand the checked call to the context's engine
 * (spmm_cpu.c, or the GPU's spmm_gpu.cu). The checks are shared with the verifiers (check_spmm.c).
 */
#include "sparse/sparse_internal.h"

#include <math.h>

void mg_spmm_options_init(mg_spmm_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->transpose = false;
    opts->alpha = 1.0;
    opts->beta = 0.0;
    opts->tf32 = false;
}

void mg_sddmm_options_init(mg_sddmm_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->alpha = 1.0;
    opts->beta = 0.0;
}

static const char *type_name(mg_type t) { return t == MG_FLOAT ? "MG_FLOAT" : "MG_DOUBLE"; }

/* Each named dense operand is live; the first is MG_FLOAT or MG_DOUBLE and the others have its
 * type; no two are the same object except first and second when `first_two_may_alias` (SDDMM's A
 * and B are only read). names[i] is operand i's name in messages. */
static mg_status check_operands(mg_context ctx, const char *who, int count, const mg_dense *X,
                                const char *const *names, bool first_two_may_alias) {
    char what[96];
    mg_status status;
    for (int i = 0; i < count; i++) {
        snprintf(what, sizeof what, "%s: %s", who, names[i]);
        if ((status = mg__check_dense(ctx, X[i], what)) != MG_SUCCESS) return status;
    }
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            if (X[i] == X[j] && !(first_two_may_alias && i == 0 && j == 1))
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "%s: %s and %s are the same object (the product cannot be done in "
                                 "place)",
                                 who, names[i], names[j]);
    if (X[0]->type != MG_FLOAT && X[0]->type != MG_DOUBLE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: %s must be MG_FLOAT or MG_DOUBLE", who,
                         names[0]);
    for (int i = 1; i < count; i++)
        if (X[i]->type != X[0]->type)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: %s is %s but %s is %s (they must have one type)", who, names[i],
                             type_name(X[i]->type), names[0], type_name(X[0]->type));
    return MG_SUCCESS;
}

static mg_status check_scalars(mg_context ctx, const char *who, double alpha, double beta) {
    if (isnan(alpha) || isnan(beta))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->%s is NaN", who,
                         isnan(alpha) ? "alpha" : "beta");
    return MG_SUCCESS;
}

mg_status mg__spmm_check_args(mg_context ctx, const char *who, const mg_matrix A, const mg_dense B,
                              const mg_dense C, const mg_spmm_options *opts) {
    char what[96];
    mg_status status;
    snprintf(what, sizeof what, "%s: A", who);
    if ((status = mg__check_matrix(ctx, A, what)) != MG_SUCCESS) return status;
    const mg_dense operands[] = {B, C};
    static const char *const names[] = {"B", "C"};
    if ((status = check_operands(ctx, who, 2, operands, names, false)) != MG_SUCCESS) return status;
    const bool t = opts->transpose;
    const uint32_t in = t ? A->rows : A->cols, out = t ? A->cols : A->rows;
    if (B->rows != in)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: B has %u rows but A%s has %u columns",
                         who, B->rows, t ? "^T" : "", in);
    if (C->rows != out)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: C has %u rows but A%s has %u rows", who,
                         C->rows, t ? "^T" : "", out);
    if (B->cols == 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: B has 0 columns (K must be at least 1)",
                         who);
    if (C->cols != B->cols)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: C has %u columns but B has %u (both have K columns)", who, C->cols,
                         B->cols);
    return check_scalars(ctx, who, opts->alpha, opts->beta);
}

mg_status mg__sddmm_check_args(mg_context ctx, const char *who, const mg_matrix S,
                               const mg_dense A, const mg_dense B, const mg_dense C,
                               const mg_sddmm_options *opts) {
    char what[96];
    mg_status status;
    snprintf(what, sizeof what, "%s: S", who);
    if ((status = mg__check_matrix(ctx, S, what)) != MG_SUCCESS) return status;
    const mg_dense operands[] = {A, B, C};
    static const char *const names[] = {"A", "B", "C"};
    if ((status = check_operands(ctx, who, 3, operands, names, true)) != MG_SUCCESS) return status;
    if (A->rows != S->rows)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: A has %u rows but S has %u rows", who,
                         A->rows, S->rows);
    if (B->rows != S->cols)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: B has %u rows but S has %u columns", who,
                         B->rows, S->cols);
    if (A->cols == 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: A has 0 columns (K must be at least 1)",
                         who);
    if (B->cols != A->cols)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: B has %u columns but A has %u (both have K columns)", who, B->cols,
                         A->cols);
    if (C->rows != S->nnz || C->cols != 1)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: C is %u x %u but S has %llu stored entries (C must be nnz(S) x 1)",
                         who, C->rows, C->cols, (unsigned long long)S->nnz);
    return check_scalars(ctx, who, opts->alpha, opts->beta);
}

mg_status mg_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                  const mg_spmm_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg_spmm_options defaults;
    if (opts == NULL) {
        mg_spmm_options_init(&defaults);
        opts = &defaults;
    }
    status = mg__spmm_check_args(ctx, "mg_spmm", A, B, C, opts);
    if (status != MG_SUCCESS) return status;
    if (mg_context_backend(ctx) == MG_BACKEND_GPU) return mg__gpu_spmm(ctx, A, B, C, opts);
    return mg__cpu_spmm(ctx, A, B, C, opts);
}

mg_status mg_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B, mg_dense C,
                   const mg_sddmm_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg_sddmm_options defaults;
    if (opts == NULL) {
        mg_sddmm_options_init(&defaults);
        opts = &defaults;
    }
    status = mg__sddmm_check_args(ctx, "mg_sddmm", S, A, B, C, opts);
    if (status != MG_SUCCESS) return status;
    if (mg_context_backend(ctx) == MG_BACKEND_GPU) return mg__gpu_sddmm(ctx, S, A, B, C, opts);
    return mg__cpu_sddmm(ctx, S, A, B, C, opts);
}
