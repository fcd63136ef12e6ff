/*
 * check_spgemm.c — verifier of mg_spgemm: a plain serial Gustavson product in double with a dense
 * accumulator (one row of C at a time, the mask applied as a filter on each product term), then
 * C's row compared with it: the same columns, sorted (the message names the first entry one has
 * and the other lacks), and each value within mg_check_spmv's rule (check_spmv.c): rtol 1e-5 for
 * float arithmetic (A and B both float) and 1e-12 for double, relative to the sum of the terms'
 * magnitudes (plus-times) or the largest term (min-plus, max-times); or-and exact.
 */
#include "sparse/sparse_internal.h"

#include <math.h>
#include <stdlib.h>

static int compare_u32(const void *x, const void *y) {
    const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

mg_status mg_check_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, const mg_matrix C,
                          const mg_spgemm_options *opts) {
    static const char who[] = "mg_check_spgemm";
    mg_status status = mg__check_context(ctx);
    mg__check_ref *ref = NULL;
    uint64_t *seen = NULL, *allowed = NULL;
    uint32_t *cols = NULL;
    if (status != MG_SUCCESS) return status;
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    if (opts != NULL) o = *opts;
    MG__TRY(mg__spgemm_check_args(ctx, who, A, B, &o));
    MG__TRY(mg__check_matrix(ctx, C, "mg_check_spgemm: C"));
    if (C->rows != A->rows || C->cols != B->cols)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "%s: C is %u x %u but A B is %u x %u", who, C->rows,
                 C->cols, A->rows, B->cols);
    const bool single = A->values == MG_VALUES_FLOAT && B->values == MG_VALUES_FLOAT;
    const mg_values want_type =
        o.semiring == MG_SEMIRING_OR_AND && A->values == MG_VALUES_NONE &&
                B->values == MG_VALUES_NONE
            ? MG_VALUES_NONE
        : single ? MG_VALUES_FLOAT
                 : MG_VALUES_DOUBLE;
    if (C->values != want_type)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "%s: C's value type is %d but the product of these operands has type %d", who,
                 (int)C->values, (int)want_type);
    const mg_type t = single ? MG_FLOAT : MG_DOUBLE;

    const uint64_t *ao, *bo, *co, *mo = NULL;
    const uint32_t *ai, *bi, *ci, *mi = NULL;
    const void *av, *bv, *cv;
    MG__TRY(mg_matrix_csr(A, &ao, &ai, &av));
    MG__TRY(mg_matrix_csr(B, &bo, &bi, &bv));
    MG__TRY(mg_matrix_csr(C, &co, &ci, &cv));
    if (o.mask != NULL) MG__TRY(mg_matrix_csr(o.mask, &mo, &mi, NULL));
    const size_t n = B->cols;
    ref = mg__malloc(mg__mul_size(n, sizeof *ref));
    seen = mg__calloc(n, sizeof *seen);
    allowed = mg__calloc(n, sizeof *allowed);
    cols = mg__malloc(mg__mul_size(n, sizeof *cols));
    if (ref == NULL || seen == NULL || allowed == NULL || cols == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for the reference (%zu columns)", who, n);
    const double identity = o.semiring == MG_SEMIRING_MIN_PLUS    ? INFINITY
                            : o.semiring == MG_SEMIRING_MAX_TIMES ? -INFINITY
                                                                  : 0.0;
    const double rtol = mg__check_rtol(t), atol = mg__check_atol(t);
    for (uint32_t i = 0; i < A->rows; i++) {
        const uint64_t stamp = (uint64_t)i + 1;
        if (o.mask != NULL)
            for (uint64_t e = mo[i]; e < mo[i + 1]; e++) allowed[mi[e]] = stamp;
        size_t count = 0;
        for (uint64_t e = ao[i]; e < ao[i + 1]; e++)
            for (uint64_t f = bo[ai[e]]; f < bo[ai[e] + 1]; f++) {
                const uint32_t j = bi[f];
                if (o.mask != NULL && (allowed[j] == stamp) == o.complement) continue;
                if (seen[j] != stamp) {
                    seen[j] = stamp;
                    ref[j] = (mg__check_ref){identity, 0.0};
                    cols[count++] = j;
                }
                mg__check_accumulate(&ref[j], o.semiring, mg__check_value_at(A, av, e, t),
                                     mg__check_value_at(B, bv, f, t));
            }
        qsort(cols, count, sizeof *cols, compare_u32);
        const uint64_t have = co[i + 1] - co[i];
        for (uint64_t q = 0; q < have || q < count; q++) {
            const uint64_t e = co[i] + q;
            if (q < have && q > 0 && ci[e] <= ci[e - 1])
                MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                         "%s: C's row %u is not sorted (column %u after column %u)", who, i, ci[e],
                         ci[e - 1]);
            if (q >= have || (q < count && cols[q] < ci[e]))
                MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                         "%s: C lacks the entry (%u, %u) that the serial product has", who, i,
                         cols[q]);
            if (q >= count || ci[e] < cols[q])
                MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                         "%s: C has the entry (%u, %u) that the serial product lacks", who, i,
                         ci[e]);
            /* a float C holds the reference rounded to float: a sum past FLT_MAX is inf there
             * (bips98_606 A A^T in float: 1e40) */
            const double exact = ref[cols[q]].value, tol = rtol * ref[cols[q]].scale + atol;
            const double want = t == MG_FLOAT ? (double)(float)exact : exact;
            const double got = mg__check_value_at(C, cv, e, MG_DOUBLE);
            if (!mg__check_close(o.semiring, want, got, tol))
                MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                         "%s: C(%u, %u) = %.17g but the serial %s product gives %.17g "
                         "(tolerance %.3g)",
                         who, i, ci[e], got, mg__semiring_name(o.semiring), want, tol);
        }
    }

cleanup:
    mg__free(ref);
    mg__free(seen);
    mg__free(allowed);
    mg__free(cols);
    return status;
}
