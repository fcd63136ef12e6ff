/*
 * check_spmv.c — verifier of mg_spmv: a plain serial product in double over A's CSR (A^T x by
 * scattering the rows, so neither the CSC nor the engines' code is involved), compared entry by
 * entry.
 *
 * Bound. Plus-times: each y[i] within rtol * (|alpha| sum_k |a_ik x_k| + |beta y_in[i]|) + atol,
 * the error of summing those terms in any order at the type's precision (rtol 1e-5 for float,
 * 1e-12 for double). Min-plus and max-times select one term, computed once in the type: within
 * rtol times the largest |a| + |x| (min-plus) or |a x| (max-times) of the row, infinities exact.
 * Or-and is exact and its values are 1 or 0. The value readers and the rule serve check_spmm.c too.
 */
#include "sparse/sparse_internal.h"

#include <float.h>
#include <math.h>

double mg__check_value_at(const mg_matrix A, const void *vals, uint64_t e, mg_type t) {
    double v = A->values == MG_VALUES_FLOAT ? ((const float *)vals)[e]
               : A->values == MG_VALUES_DOUBLE ? ((const double *)vals)[e]
                                               : 1.0;
    return t == MG_FLOAT ? (double)(float)v : v; /* A's values are converted to x's type */
}

double mg__check_dense_at(const mg_dense X, size_t i) {
    return X->type == MG_FLOAT ? ((const float *)X->data)[i] : ((const double *)X->data)[i];
}

double mg__check_rtol(mg_type t) { return t == MG_FLOAT ? 1e-5 : 1e-12; }
double mg__check_atol(mg_type t) { return t == MG_FLOAT ? FLT_MIN : DBL_MIN; }

void mg__check_accumulate(mg__check_ref *r, mg_semiring s, double a, double xv) {
    switch (s) {
    case MG_SEMIRING_PLUS_TIMES:
        r->value += a * xv;
        r->scale += fabs(a * xv);
        break;
    case MG_SEMIRING_MIN_PLUS:
        if (a + xv < r->value) r->value = a + xv;
        if (fabs(a) + fabs(xv) > r->scale) r->scale = fabs(a) + fabs(xv);
        break;
    case MG_SEMIRING_MAX_TIMES:
        if (a * xv > r->value) r->value = a * xv;
        if (fabs(a * xv) > r->scale) r->scale = fabs(a * xv);
        break;
    case MG_SEMIRING_OR_AND:
        if (a != 0 && xv != 0) r->value = 1;
        break;
    }
}

bool mg__check_close(mg_semiring s, double want, double got, double tol) {
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (s == MG_SEMIRING_OR_AND) return want == got;
    if (isinf(want) || isinf(got)) return want == got;
    return fabs(want - got) <= tol;
}

mg_status mg_check_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, const mg_dense y_in,
                        const mg_dense y, const mg_spmv_options *opts) {
    mg_status status = mg__check_context(ctx);
    mg__check_ref *ref = NULL;
    if (status != MG_SUCCESS) return status;
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    if (opts != NULL) o = *opts;
    MG__TRY(mg__check_matrix(ctx, A, "mg_check_spmv: A")); /* a share's view: only its arcs here */
    MG__TRY(mg__spmv_check_args(ctx, "mg_check_spmv", A, x, y, &o));
    if (o.beta != 0) {
        MG__TRY(mg__check_dense(ctx, y_in, "mg_check_spmv: y_in"));
        if (y_in->type != y->type || y_in->rows != y->rows || y_in->cols != 1)
            MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_spmv: y_in (%u x %u) must have y's shape (%u x 1) and type", y_in->rows,
                     y_in->cols, y->rows);
        MG__TRY(mg__dense_need_host(ctx, y_in));
    }
    MG__TRY(mg__dense_need_host(ctx, x));
    MG__TRY(mg__dense_need_host(ctx, y));

    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    MG__TRY(mg_matrix_csr(A, &off, &idx, &vals));
    const uint32_t out_n = y->rows;
    ref = mg__malloc(mg__mul_size(out_n, sizeof *ref));
    if (ref == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_spmv: out of memory for the reference (%u rows)",
                 out_n);
    const double identity = o.semiring == MG_SEMIRING_MIN_PLUS    ? INFINITY
                            : o.semiring == MG_SEMIRING_MAX_TIMES ? -INFINITY
                                                                  : 0.0;
    for (uint32_t i = 0; i < out_n; i++) ref[i] = (mg__check_ref){identity, 0.0};
    for (uint32_t r = 0; r < A->rows; r++) {
        for (uint64_t e = off[r]; e < off[r + 1]; e++) {
            const uint32_t c = idx[e];
            const double a = mg__check_value_at(A, vals, e, x->type);
            if (o.transpose) mg__check_accumulate(&ref[c], o.semiring, a, mg__check_dense_at(x, r));
            else mg__check_accumulate(&ref[r], o.semiring, a, mg__check_dense_at(x, c));
        }
    }

    const double rtol = mg__check_rtol(x->type), atol = mg__check_atol(x->type);
    for (uint32_t i = 0; i < out_n; i++) {
        double want = ref[i].value, scale = ref[i].scale;
        if (o.semiring == MG_SEMIRING_PLUS_TIMES) {
            want *= o.alpha;
            scale *= fabs(o.alpha);
            if (o.beta != 0) {
                want += o.beta * mg__check_dense_at(y_in, i);
                scale += fabs(o.beta * mg__check_dense_at(y_in, i));
            }
        } else if (o.beta != 0) {
            const double old = mg__check_dense_at(y_in, i);
            if (o.semiring == MG_SEMIRING_OR_AND) want = (old != 0 || want != 0) ? 1 : 0;
            else if (o.semiring == MG_SEMIRING_MIN_PLUS) want = old < want ? old : want;
            else want = old > want ? old : want;
            if (fabs(old) > scale) scale = fabs(old);
        }
        const double got = mg__check_dense_at(y, i);
        if (!mg__check_close(o.semiring, want, got, rtol * scale + atol))
            MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_spmv: y[%u] = %.17g but the serial %s%s product gives %.17g "
                     "(tolerance %.3g)",
                     i, got, mg__semiring_name(o.semiring), o.transpose ? " transposed" : "",
                     want, rtol * scale + atol);
    }

cleanup:
    mg__free(ref);
    return status;
}
