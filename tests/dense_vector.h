/*
 * dense_vector.h — the sparse tests' one-column mg_dense helpers (test_spmv.c, test_cg.c): make a
 * vector from doubles, read one entry back. Failures count as CHECK failures (check.h).
 */
#ifndef MG_TEST_DENSE_VECTOR_H
#define MG_TEST_DENSE_VECTOR_H

#include "check.h"
#include "mgraph.h"

#include <math.h>

/* A rows x 1 vector of `type` holding v converted (zeros when v is NULL). */
static inline mg_dense test_vector(mg_context ctx, mg_type type, uint32_t rows, const double *v) {
    mg_dense X = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &X, rows, 1, type));
    for (uint32_t i = 0; v != NULL && i < rows; i++) CHECK_OK(ctx, mg_dense_set(ctx, X, i, 0, v[i]));
    return X;
}

static inline double test_entry(mg_context ctx, const mg_dense X, uint32_t i) {
    double v = NAN;
    CHECK_OK(ctx, mg_dense_get(ctx, X, i, 0, &v));
    return v;
}

#endif
