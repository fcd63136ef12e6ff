/*
 * spmv.c — mg_spmv, the public sparse matrix-vector product: checks every argument, then hands the
 * checked call to the context's engine (spmv_cpu.c, or the GPU's spmv_gpu.cu).
 */
#include "core/dist.h"
#include "sparse/sparse_internal.h"

#include <math.h>

void mg_spmv_options_init(mg_spmv_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->semiring = MG_SEMIRING_PLUS_TIMES;
    opts->transpose = false;
    opts->alpha = 1.0;
    opts->beta = 0.0;
}

const char *mg__semiring_name(mg_semiring s) {
    switch (s) {
    case MG_SEMIRING_PLUS_TIMES: return "plus-times";
    case MG_SEMIRING_MIN_PLUS: return "min-plus";
    case MG_SEMIRING_MAX_TIMES: return "max-times";
    case MG_SEMIRING_OR_AND: return "or-and";
    }
    return "?";
}

mg_status mg__spmv_check_args(mg_context ctx, const char *who, const mg_matrix A, const mg_dense x,
                              const mg_dense y, const mg_spmv_options *opts) {
    char what[96];
    mg_status status;
    snprintf(what, sizeof what, "%s: A", who);
    if ((status = mg__check_matrix_or_share(ctx, A, what)) != MG_SUCCESS) return status;
    snprintf(what, sizeof what, "%s: x", who);
    if ((status = mg__check_dense(ctx, x, what)) != MG_SUCCESS) return status;
    snprintf(what, sizeof what, "%s: y", who);
    if ((status = mg__check_dense(ctx, y, what)) != MG_SUCCESS) return status;
    if (x == y)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: x and y are the same object (the product cannot be done in place)",
                         who);
    if (x->type != MG_FLOAT && x->type != MG_DOUBLE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: x must be MG_FLOAT or MG_DOUBLE", who);
    if (y->type != x->type)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: y is %s but x is %s (x and y must have one type)", who,
                         y->type == MG_FLOAT ? "MG_FLOAT" : "MG_DOUBLE",
                         x->type == MG_FLOAT ? "MG_FLOAT" : "MG_DOUBLE");
    if (x->cols != 1)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: x has %u columns (a vector has 1)", who, x->cols);
    if (y->cols != 1)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: y has %u columns (a vector has 1)", who, y->cols);
    const bool t = opts->transpose;
    const uint32_t in = t ? A->rows : A->cols, out = t ? A->cols : A->rows;
    if (x->rows != in)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: x has %u rows but A%s has %u columns",
                         who, x->rows, t ? "^T" : "", in);
    if (y->rows != out)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: y has %u rows but A%s has %u rows", who,
                         y->rows, t ? "^T" : "", out);
    if ((unsigned)opts->semiring > (unsigned)MG_SEMIRING_OR_AND)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->semiring = %d is not an mg_semiring",
                         who, (int)opts->semiring);
    if (isnan(opts->alpha) || isnan(opts->beta))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->%s is NaN", who,
                         isnan(opts->alpha) ? "alpha" : "beta");
    if (opts->semiring != MG_SEMIRING_PLUS_TIMES) {
        if (opts->alpha != 1)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->alpha = %g with the %s semiring (only plus-times scales; "
                             "the others take alpha 1)",
                             who, opts->alpha, mg__semiring_name(opts->semiring));
        if (opts->beta != 0 && opts->beta != 1)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->beta = %g with the %s semiring (0: y = A x, 1: y = y (+) "
                             "A x; nothing else)",
                             who, opts->beta, mg__semiring_name(opts->semiring));
    }
    return MG_SUCCESS;
}

/* The product on a view of this rank's share of a split graph. Its arcs are those into the rank's
 * vertices, A's columns (entry (u, v) for an arc u -> v): A^T x is complete on the rank's own range
 * of rows, and so is an undirected graph's A x, the same product (A is symmetric). Each rank makes
 * its product into a scratch vector; once every rank has, it becomes y and the ranges go from
 * their owners to all, so a failure on any rank leaves y as it was on every rank. */
static mg_status spmv_on_share(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                               const mg_spmv_options *opts) {
    if (ctx->dist == NULL || ctx->dist->ranks.size != A->graph->dist->size)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_spmv: A views a graph split over %d ranks: ctx must be a context over "
                         "those ranks", A->graph->dist->size);
    if (!opts->transpose && A->graph->dist->directed)
        return mg__error(ctx, MG_UNAVAILABLE,
                         "mg_spmv: y = A x on a directed graph split over ranks: a rank holds the "
                         "arcs into its vertices (A's columns) only; y = A^T x (opts->transpose) "
                         "runs, and so does A x on an undirected graph");
    mg_spmv_options local = *opts;
    local.transpose = true;
    mg_dense out = NULL;
    mg_status status = mg_dense_create(ctx, &out, y->rows, y->cols, y->type);
    if (status == MG_SUCCESS && opts->beta != 0) {
        status = mg__dense_need_host(ctx, y);
        if (status == MG_SUCCESS) status = mg_dense_load(ctx, out, y->data);
    }
    if (status == MG_SUCCESS)
        status = mg_context_backend(ctx) == MG_BACKEND_GPU ? mg__gpu_spmv(ctx, A, x, out, &local)
                                                            : mg__cpu_spmv(ctx, A, x, out, &local);
    status = mg__dist_agree_status(ctx, status, "mg_spmv (a graph split over ranks)");
    if (status == MG_SUCCESS) {
        const struct mg_dense_s t = *y;
        *y = *out;
        *out = t;
        status = mg__dist_sync_dense(ctx, A->graph, y);
    }
    mg_dense_free(&out);
    return status;
}

mg_status mg_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                  const mg_spmv_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg_spmv_options defaults;
    if (opts == NULL) {
        mg_spmv_options_init(&defaults);
        opts = &defaults;
    }
    status = mg__spmv_check_args(ctx, "mg_spmv", A, x, y, opts);
    if (status != MG_SUCCESS) return status;
    if (mg__matrix_is_share(A)) return spmv_on_share(ctx, A, x, y, opts);
    if (mg_context_backend(ctx) == MG_BACKEND_GPU) return mg__gpu_spmv(ctx, A, x, y, opts);
    return mg__cpu_spmv(ctx, A, x, y, opts);
}
