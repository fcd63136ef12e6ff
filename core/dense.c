/*
 * dense.c — dense row-major matrices and vectors, the sparse kernels' operands: creation and the
 * host accessors. Values may live on the device (core/gpu_dense.cu); every host read here goes
 * through mg__dense_need_host, and every host write leaves the host copy the current one.
 */
#include "mg_internal.h"

#ifndef MG_HAVE_CUDA
/* Without CUDA the values never leave the host. */
mg_status mg__dense_need_host(mg_context ctx, const mg_dense X) {
    (void)ctx;
    (void)X;
    return MG_SUCCESS;
}

void mg__dense_release_device(mg_dense X) { (void)X; }
#endif

mg_status mg__check_dense(mg_context ctx, const mg_dense X, const char *what) {
    if (X == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    if (X->magic != MG__MAGIC_DENSE)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_dense", what);
    return MG_SUCCESS;
}

static size_t count(const mg_dense X) { return (size_t)X->rows * X->cols; }

mg_status mg_dense_create(mg_context ctx, mg_dense *X, uint32_t rows, uint32_t cols, mg_type type) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (X == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_dense_create: X is NULL");
    *X = NULL;
    if (type != MG_FLOAT && type != MG_DOUBLE)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_dense_create: type must be MG_FLOAT or MG_DOUBLE (got %d)", (int)type);
    const size_t bytes = mg__mul_size(mg__mul_size(rows, cols), mg__type_size(type));
    if (bytes == SIZE_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_dense_create: %u x %u values do not fit in memory's address range",
                         rows, cols);
    mg_dense D = mg__calloc(1, sizeof *D);
    void *data = mg__calloc((size_t)rows * cols, mg__type_size(type));
    if (D == NULL || data == NULL) {
        mg__free(D);
        mg__free(data);
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_dense_create: out of memory for %u x %u values",
                         rows, cols);
    }
    D->magic = MG__MAGIC_DENSE;
    D->rows = rows;
    D->cols = cols;
    D->type = type;
    D->data = data;
    *X = D;
    return MG_SUCCESS;
}

mg_status mg_dense_free(mg_dense *X) {
    if (X == NULL || *X == NULL) return MG_SUCCESS;
    if ((*X)->magic != MG__MAGIC_DENSE) return MG_INVALID_OBJECT;
    (*X)->magic = MG__MAGIC_FREED;
    mg__dense_release_device(*X);
    mg__free((*X)->data);
    mg__free(*X);
    *X = NULL;
    return MG_SUCCESS;
}

static bool live(const mg_dense X) { return X != NULL && X->magic == MG__MAGIC_DENSE; }

uint32_t mg_dense_rows(const mg_dense X) { return live(X) ? X->rows : 0; }
uint32_t mg_dense_cols(const mg_dense X) { return live(X) ? X->cols : 0; }
mg_type mg_dense_type(const mg_dense X) { return live(X) ? X->type : MG_DOUBLE; }

#define DENSE_PROLOGUE(X, what)                                                                    \
    mg_status status = mg__check_context(ctx);                                                     \
    if (status != MG_SUCCESS) return status;                                                       \
    if ((status = mg__check_dense(ctx, X, what)) != MG_SUCCESS) return status;

mg_status mg_dense_load(mg_context ctx, mg_dense X, const void *values) {
    DENSE_PROLOGUE(X, "mg_dense_load: X");
    if (values == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_dense_load: values is NULL");
    /* every value is overwritten, so nothing need come back from the device first */
    memcpy(X->data, values, count(X) * mg__type_size(X->type));
    X->on_device = false;
    return MG_SUCCESS;
}

mg_status mg_dense_extract(mg_context ctx, const mg_dense X, void *values) {
    DENSE_PROLOGUE(X, "mg_dense_extract: X");
    if (values == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_dense_extract: values is NULL");
    if ((status = mg__dense_need_host(ctx, X)) != MG_SUCCESS) return status;
    memcpy(values, X->data, count(X) * mg__type_size(X->type));
    return MG_SUCCESS;
}

mg_status mg_dense_fill(mg_context ctx, mg_dense X, double value) {
    DENSE_PROLOGUE(X, "mg_dense_fill: X");
    const int64_t n = (int64_t)count(X);
    if (X->type == MG_FLOAT) {
        float *v = X->data;
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
        for (int64_t i = 0; i < n; i++) v[i] = (float)value;
    } else {
        double *v = X->data;
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
        for (int64_t i = 0; i < n; i++) v[i] = value;
    }
    X->on_device = false;
    return MG_SUCCESS;
}

static mg_status check_position(mg_context ctx, const mg_dense X, uint32_t row, uint32_t col,
                                const char *call) {
    if (row >= X->rows)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: row %u is out of range (X has %u rows)",
                         call, row, X->rows);
    if (col >= X->cols)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: col %u is out of range (X has %u columns)", call, col, X->cols);
    return MG_SUCCESS;
}

mg_status mg_dense_get(mg_context ctx, const mg_dense X, uint32_t row, uint32_t col, double *value) {
    DENSE_PROLOGUE(X, "mg_dense_get: X");
    if (value == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_dense_get: value is NULL");
    if ((status = check_position(ctx, X, row, col, "mg_dense_get")) != MG_SUCCESS) return status;
    if ((status = mg__dense_need_host(ctx, X)) != MG_SUCCESS) return status;
    const size_t i = (size_t)row * X->cols + col;
    *value = X->type == MG_FLOAT ? (double)((const float *)X->data)[i] : ((const double *)X->data)[i];
    return MG_SUCCESS;
}

mg_status mg_dense_set(mg_context ctx, mg_dense X, uint32_t row, uint32_t col, double value) {
    DENSE_PROLOGUE(X, "mg_dense_set: X");
    if ((status = check_position(ctx, X, row, col, "mg_dense_set")) != MG_SUCCESS) return status;
    if ((status = mg__dense_need_host(ctx, X)) != MG_SUCCESS) return status;
    const size_t i = (size_t)row * X->cols + col;
    if (X->type == MG_FLOAT) ((float *)X->data)[i] = (float)value;
    else ((double *)X->data)[i] = value;
    X->on_device = false;
    return MG_SUCCESS;
}
