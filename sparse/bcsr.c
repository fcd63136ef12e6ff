/*
 * bcsr.c — block-CSR matrices (mg_bcsr): made from arrays or from an mg_matrix, turned back into
 * one, compared (mg_check_bcsr), and multiplied (mg_bcsr_multiply).
 *
 * The product is Gustavson's over block rows (the seed report 001's CSR_mul, without its atomics):
 * a symbolic pass lists each output block row's distinct block columns (a stamped marker per
 * thread), then every output block (i, j) is the sum over A's blocks (i, l), l ascending, of the
 * k x k product A(i, l) B(l, j). The structure is always built here on the host; the values are
 * filled on OpenMP threads or by the CUDA kernel (bcsr_gpu.cu), both in the same order, so uint64
 * results agree bit for bit and float/double ones up to contraction into FMAs. uint64 arithmetic
 * is C's unsigned arithmetic: it wraps modulo 2^64.
 */
#include "sparse/bcsr_internal.h"

#include <math.h>
#include <omp.h>

/* Below this many block multiply-adds (k^3 each) one thread is faster than a team. */
#define BCSR_SERIAL_WORK 4096

mg_status mg__check_bcsr(mg_context ctx, const mg_bcsr B, const char *what) {
    if (B == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    if (B->magic != MG__MAGIC_BCSR)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_bcsr", what);
    return MG_SUCCESS;
}

static uint32_t ceil_div(uint32_t a, uint32_t k) { return (uint32_t)(((uint64_t)a + k - 1) / k); }

static const char *type_name(mg_bcsr_values t) {
    return t == MG_BCSR_UINT64 ? "uint64" : t == MG_BCSR_FLOAT ? "float" : "double";
}

mg_status mg__bcsr_alloc(mg_context ctx, const char *call, uint32_t rows, uint32_t cols, uint32_t k,
                         mg_bcsr_values type, uint64_t nblocks, mg_bcsr *B) {
    mg_status status = MG_SUCCESS;
    *B = NULL;
    mg_bcsr b = mg__calloc(1, sizeof *b);
    if (b == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of memory", call);
    b->rows = rows;
    b->cols = cols;
    b->k = k;
    b->block_rows = ceil_div(rows, k);
    b->block_cols = ceil_div(cols, k);
    b->type = type;
    b->nblocks = nblocks;
    const size_t value_bytes =
        mg__mul_size(mg__mul_size((size_t)nblocks, (size_t)k * k), mg__bcsr_value_size(type));
    b->offsets = mg__calloc((size_t)b->block_rows + 1, sizeof *b->offsets);
    b->bcols = mg__malloc(mg__mul_size((size_t)nblocks, sizeof *b->bcols));
    b->values = mg__calloc(1, value_bytes);
    b->magic = MG__MAGIC_BCSR;
    if (b->offsets == NULL || b->bcols == NULL || b->values == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "%s: out of memory for a %u x %u matrix of %llu blocks of %u x %u %s values", call,
                 rows, cols, (unsigned long long)nblocks, k, k, type_name(type));
    *B = b;
    return MG_SUCCESS;
cleanup:
    mg_bcsr_free(&b);
    return status;
}

mg_status mg_bcsr_free(mg_bcsr *B) {
    if (B == NULL || *B == NULL) return MG_SUCCESS;
    if ((*B)->magic != MG__MAGIC_BCSR) return MG_INVALID_OBJECT;
    mg__free((*B)->offsets);
    mg__free((*B)->bcols);
    mg__free((*B)->values);
    (*B)->magic = MG__MAGIC_FREED;
    mg__free(*B);
    *B = NULL;
    return MG_SUCCESS;
}

uint32_t mg_bcsr_rows(const mg_bcsr B) { return B != NULL ? B->rows : 0; }
uint32_t mg_bcsr_cols(const mg_bcsr B) { return B != NULL ? B->cols : 0; }
uint32_t mg_bcsr_block_size(const mg_bcsr B) { return B != NULL ? B->k : 0; }
uint64_t mg_bcsr_nblocks(const mg_bcsr B) { return B != NULL ? B->nblocks : 0; }
mg_bcsr_values mg_bcsr_type(const mg_bcsr B) { return B != NULL ? B->type : MG_BCSR_UINT64; }

mg_status mg_bcsr_arrays(const mg_bcsr B, const uint64_t **block_offsets, const uint32_t **block_cols,
                         const void **values) {
    mg_status status = mg__check_bcsr(NULL, B, "mg_bcsr_arrays: B");
    if (status != MG_SUCCESS) return status;
    if (block_offsets != NULL) *block_offsets = B->offsets;
    if (block_cols != NULL) *block_cols = B->bcols;
    if (values != NULL) *values = B->values;
    return MG_SUCCESS;
}

/* The shape arguments every constructor takes; `call` names it. */
static mg_status check_shape(mg_context ctx, const char *call, uint32_t rows, uint32_t cols,
                             uint32_t k, mg_bcsr_values type) {
    if (k < MG_BCSR_MIN_BLOCK || k > MG_BCSR_MAX_BLOCK)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: k = %u is not a block size in %d..%d", call,
                         k, MG_BCSR_MIN_BLOCK, MG_BCSR_MAX_BLOCK);
    if (rows > INT32_MAX || cols > INT32_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: %u x %u: rows and cols must be below 2^31",
                         call, rows, cols);
    if ((unsigned)type > (unsigned)MG_BCSR_DOUBLE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: type = %d is not an mg_bcsr_values", call,
                         (int)type);
    return MG_SUCCESS;
}

static bool value_is_zero(const void *values, mg_bcsr_values type, uint64_t at) {
    if (type == MG_BCSR_FLOAT) return ((const float *)values)[at] == 0;
    if (type == MG_BCSR_DOUBLE) return ((const double *)values)[at] == 0;
    return ((const uint64_t *)values)[at] == 0;
}

mg_status mg_bcsr_create(mg_context ctx, mg_bcsr *B, uint32_t rows, uint32_t cols, uint32_t k,
                         mg_bcsr_values type, const uint64_t *block_offsets,
                         const uint32_t *block_cols, const void *values) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (B == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_create: B is NULL");
    *B = NULL;
    if ((status = check_shape(ctx, "mg_bcsr_create", rows, cols, k, type)) != MG_SUCCESS)
        return status;
    if (block_offsets == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_create: block_offsets is NULL");
    const uint32_t brows = ceil_div(rows, k), bcols = ceil_div(cols, k);
    if (block_offsets[0] != 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_create: block_offsets[0] = %llu, not 0",
                         (unsigned long long)block_offsets[0]);
    for (uint32_t i = 0; i < brows; i++)
        if (block_offsets[i + 1] < block_offsets[i])
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_bcsr_create: block_offsets[%u] = %llu is below block_offsets[%u]",
                             i + 1, (unsigned long long)block_offsets[i + 1], i);
    const uint64_t nblocks = block_offsets[brows];
    if (nblocks > 0 && (block_cols == NULL || values == NULL))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_create: %s is NULL with %llu blocks",
                         block_cols == NULL ? "block_cols" : "values", (unsigned long long)nblocks);
    const uint64_t kk = (uint64_t)k * k;
    for (uint32_t i = 0; i < brows; i++)
        for (uint64_t p = block_offsets[i]; p < block_offsets[i + 1]; p++) {
            const uint32_t j = block_cols[p];
            if (j >= bcols || (p > block_offsets[i] && j <= block_cols[p - 1]))
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "mg_bcsr_create: block %llu (block row %u) has block column %u: %s",
                                 (unsigned long long)p, i, j,
                                 j >= bcols ? "out of range" : "not above the one before it");
            /* Only the last block row and column overhang the matrix. */
            for (uint32_t r = 0; r < k; r++)
                for (uint32_t c = 0; c < k; c++)
                    if (((uint64_t)i * k + r >= rows || (uint64_t)j * k + c >= cols) &&
                        !value_is_zero(values, type, p * kk + r * k + c))
                        return mg__error(ctx, MG_INVALID_ARGUMENT,
                                         "mg_bcsr_create: block %llu holds a non-zero value at "
                                         "(%llu, %llu), outside the %u x %u matrix",
                                         (unsigned long long)p, (unsigned long long)i * k + r,
                                         (unsigned long long)j * k + c, rows, cols);
        }
    mg_bcsr b = NULL;
    if ((status = mg__bcsr_alloc(ctx, "mg_bcsr_create", rows, cols, k, type, nblocks, &b)) !=
        MG_SUCCESS)
        return status;
    memcpy(b->offsets, block_offsets, ((size_t)brows + 1) * sizeof *b->offsets);
    if (nblocks > 0) {
        memcpy(b->bcols, block_cols, (size_t)nblocks * sizeof *b->bcols);
        memcpy(b->values, values, (size_t)(nblocks * kk) * mg__bcsr_value_size(type));
    }
    *B = b;
    return MG_SUCCESS;
}

/* ---- block structure --------------------------------------------------------------------------- */

static int compare_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* What the symbolic pass reads: a CSR matrix (its block row i's distinct block columns are those of
 * its rows i*k .. i*k+k-1) or a product A B (those of B's block rows l over A's blocks (i, l)). */
typedef struct {
    const mg_matrix M;
    const mg_bcsr A, B;
    uint32_t k;
} structure_source;

/* Block row i's distinct block columns, in first-seen order, into out (when not NULL); returns how
 * many. marker (one word per block column) holds `stamp` for those seen. */
static uint64_t list_row(const structure_source *s, uint32_t i, uint32_t *marker, uint32_t stamp,
                         uint32_t *out) {
    uint64_t n = 0;
    if (s->M != NULL) {
        const uint64_t *off = s->M->csr.offsets;
        const uint64_t lo = (uint64_t)i * s->k;
        const uint64_t hi = lo + s->k < s->M->rows ? lo + s->k : s->M->rows;
        for (uint64_t e = off[lo]; e < off[hi]; e++) {
            const uint32_t j = s->M->csr.indices[e] / s->k;
            if (marker[j] == stamp) continue;
            marker[j] = stamp;
            if (out != NULL) out[n] = j;
            n++;
        }
        return n;
    }
    for (uint64_t a = s->A->offsets[i]; a < s->A->offsets[i + 1]; a++) {
        const uint32_t l = s->A->bcols[a];
        for (uint64_t b = s->B->offsets[l]; b < s->B->offsets[l + 1]; b++) {
            const uint32_t j = s->B->bcols[b];
            if (marker[j] == stamp) continue;
            marker[j] = stamp;
            if (out != NULL) out[n] = j;
            n++;
        }
    }
    return n;
}

/* Fills C's offsets and block columns (sorted per block row) from s, allocating C (values zero). */
static mg_status build_structure(mg_context ctx, const char *call, const structure_source *s,
                                 uint32_t rows, uint32_t cols, uint32_t k, mg_bcsr_values type,
                                 bool parallel, mg_bcsr *C) {
    mg_status status = MG_SUCCESS;
    mg_bcsr c = NULL;
    uint64_t *count = NULL;
    uint32_t *markers = NULL;
    const uint32_t brows = ceil_div(rows, k), bcols = ceil_div(cols, k);
    const int threads = parallel ? omp_get_max_threads() : 1;
    count = mg__calloc((size_t)brows + 1, sizeof *count);
    markers = mg__calloc(mg__mul_size((size_t)threads, (size_t)bcols), sizeof *markers);
    if (count == NULL || markers == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for %d threads' markers of %u block "
                 "columns", call, threads, bcols);
    /* Stamps 2i + 1 (counting) and 2i + 2 (listing) are distinct per block row: block rows are
     * below 2^30 (rows below 2^31, k >= 2), so they fit a word and the markers never need
     * clearing. */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        uint32_t *marker = markers + (size_t)omp_get_thread_num() * bcols;
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < (int64_t)brows; i++)
            count[i] = list_row(s, (uint32_t)i, marker, 2 * (uint32_t)i + 1, NULL);
    }
    const uint64_t nblocks = mg__exclusive_scan_u64(count, (size_t)brows + 1);
    MG__TRY(mg__bcsr_alloc(ctx, call, rows, cols, k, type, nblocks, &c));
    memcpy(c->offsets, count, ((size_t)brows + 1) * sizeof *count);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        uint32_t *marker = markers + (size_t)omp_get_thread_num() * bcols;
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < (int64_t)brows; i++) {
            uint32_t *row = c->bcols + c->offsets[i];
            const uint64_t n = list_row(s, (uint32_t)i, marker, 2 * (uint32_t)i + 2, row);
            qsort(row, (size_t)n, sizeof *row, compare_u32);
        }
    }
    *C = c;
    c = NULL;
cleanup:
    mg_bcsr_free(&c);
    mg__free(count);
    mg__free(markers);
    return status;
}

/* ---- CSR <-> BCSR ------------------------------------------------------------------------------ */

/* A's value at CSR entry e as type t's bits; false when a uint64 cannot hold it. */
static bool convert_value(const mg_matrix A, uint64_t e, mg_bcsr_values t, void *out) {
    double v = 1;
    if (A->values == MG_VALUES_FLOAT) v = ((const float *)A->csr.weights)[e];
    else if (A->values == MG_VALUES_DOUBLE) v = ((const double *)A->csr.weights)[e];
    if (t == MG_BCSR_FLOAT) {
        *(float *)out = (float)v;
    } else if (t == MG_BCSR_DOUBLE) {
        *(double *)out = v;
    } else {
        /* Exact integers only; a negative one is its residue modulo 2^64 (two's complement). */
        if (!(v == floor(v)) || v < -9223372036854775808.0 || v >= 18446744073709551616.0)
            return false;
        *(uint64_t *)out = v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
    }
    return true;
}

mg_status mg_bcsr_from_matrix(mg_context ctx, const mg_matrix A, uint32_t k, mg_bcsr_values type,
                              mg_bcsr *B) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (B == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_from_matrix: B is NULL");
    *B = NULL;
    if ((status = mg__check_matrix(ctx, A, "mg_bcsr_from_matrix: A")) != MG_SUCCESS) return status;
    if ((status = check_shape(ctx, "mg_bcsr_from_matrix", A->rows, A->cols, k, type)) != MG_SUCCESS)
        return status;
    mg_bcsr c = NULL;
    uint32_t *pos = NULL;
    if (type == MG_BCSR_UINT64)
        for (uint32_t i = 0; i < A->rows; i++)
            for (uint64_t e = A->csr.offsets[i]; e < A->csr.offsets[i + 1]; e++) {
                uint64_t bits;
                if (!convert_value(A, e, type, &bits))
                    MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                             "mg_bcsr_from_matrix: A(%u, %u) = %.17g is not an integer in "
                             "[-2^63, 2^64), which uint64 values need", i, A->csr.indices[e],
                             A->values == MG_VALUES_FLOAT ? ((const float *)A->csr.weights)[e]
                                                          : ((const double *)A->csr.weights)[e]);
            }
    const structure_source s = {.M = A, .k = k};
    const bool parallel = A->nnz > BCSR_SERIAL_WORK;
    MG__TRY(build_structure(ctx, "mg_bcsr_from_matrix", &s, A->rows, A->cols, k, type, parallel, &c));
    const int threads = parallel ? omp_get_max_threads() : 1;
    pos = mg__malloc(mg__mul_size((size_t)threads, (size_t)c->block_cols * sizeof *pos));
    if (pos == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_bcsr_from_matrix: out of memory for %d threads' "
                 "position maps", threads);
    const size_t vsize = mg__bcsr_value_size(type);
    const uint64_t kk = (uint64_t)k * k;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        uint32_t *at = pos + (size_t)omp_get_thread_num() * c->block_cols;
#pragma omp for schedule(dynamic, 64)
        for (int64_t bi = 0; bi < (int64_t)c->block_rows; bi++) {
            const uint64_t first = c->offsets[bi];
            for (uint64_t p = first; p < c->offsets[bi + 1]; p++) at[c->bcols[p]] = (uint32_t)(p - first);
            const uint32_t lo = (uint32_t)bi * k, hi = lo + k < A->rows ? lo + k : A->rows;
            for (uint32_t i = lo; i < hi; i++)
                for (uint64_t e = A->csr.offsets[i]; e < A->csr.offsets[i + 1]; e++) {
                    const uint32_t j = A->csr.indices[e];
                    const uint64_t slot =
                        (first + at[j / k]) * kk + (uint64_t)(i - lo) * k + j % k;
                    convert_value(A, e, type, (char *)c->values + slot * vsize);
                }
        }
    }
    *B = c;
    c = NULL;
cleanup:
    mg_bcsr_free(&c);
    mg__free(pos);
    return status;
}

mg_status mg_bcsr_to_matrix(mg_context ctx, const mg_bcsr B, mg_matrix *A) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (A == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_to_matrix: A is NULL");
    *A = NULL;
    if ((status = mg__check_bcsr(ctx, B, "mg_bcsr_to_matrix: B")) != MG_SUCCESS) return status;
    uint32_t *row_ids = NULL, *col_ids = NULL;
    void *vals = NULL;
    const uint64_t kk = (uint64_t)B->k * B->k;
    uint64_t nnz = 0;
    for (uint64_t t = 0; t < B->nblocks * kk; t++) nnz += !value_is_zero(B->values, B->type, t);
    const mg_values out = B->type == MG_BCSR_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    row_ids = mg__malloc(mg__mul_size((size_t)nnz, sizeof *row_ids));
    col_ids = mg__malloc(mg__mul_size((size_t)nnz, sizeof *col_ids));
    vals = mg__malloc(mg__mul_size((size_t)nnz, out == MG_VALUES_FLOAT ? 4 : 8));
    if (row_ids == NULL || col_ids == NULL || vals == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_bcsr_to_matrix: out of memory for %llu entries",
                 (unsigned long long)nnz);
    uint64_t n = 0;
    for (uint32_t bi = 0; bi < B->block_rows; bi++)
        for (uint64_t p = B->offsets[bi]; p < B->offsets[bi + 1]; p++)
            for (uint32_t r = 0; r < B->k; r++)
                for (uint32_t c = 0; c < B->k; c++) {
                    const uint64_t t = p * kk + (uint64_t)r * B->k + c;
                    if (value_is_zero(B->values, B->type, t)) continue;
                    row_ids[n] = bi * B->k + r;
                    col_ids[n] = B->bcols[p] * B->k + c;
                    if (B->type == MG_BCSR_FLOAT)
                        ((float *)vals)[n] = ((const float *)B->values)[t];
                    else if (B->type == MG_BCSR_DOUBLE)
                        ((double *)vals)[n] = ((const double *)B->values)[t];
                    else
                        ((double *)vals)[n] = (double)((const uint64_t *)B->values)[t];
                    n++;
                }
    status = mg__matrix_build(ctx, "mg_bcsr_to_matrix", A, B->rows, B->cols, nnz, row_ids, col_ids,
                              vals, out, false, 0);
cleanup:
    mg__free(row_ids);
    mg__free(col_ids);
    mg__free(vals);
    return status;
}

/* ---- the product ------------------------------------------------------------------------------- */

/* c += a b for k x k row-major blocks; entry (r, x) accumulates over m ascending, as the kernel. */
#define DEFINE_BLOCK_MAC(NAME, T)                                                                  \
    static void NAME(T *restrict c, const T *restrict a, const T *restrict b, uint32_t k) {        \
        for (uint32_t r = 0; r < k; r++)                                                           \
            for (uint32_t m = 0; m < k; m++) {                                                     \
                const T x = a[r * k + m];                                                          \
                for (uint32_t col = 0; col < k; col++) c[r * k + col] += x * b[m * k + col];       \
            }                                                                                      \
    }
DEFINE_BLOCK_MAC(mac_u64, uint64_t)
DEFINE_BLOCK_MAC(mac_f32, float)
DEFINE_BLOCK_MAC(mac_f64, double)

static mg_status cpu_values(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr C,
                            bool parallel) {
    const int threads = parallel ? omp_get_max_threads() : 1;
    uint32_t *pos = mg__malloc(mg__mul_size((size_t)threads, (size_t)C->block_cols * sizeof *pos));
    if (pos == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_bcsr_multiply: out of memory for %d threads' "
                         "position maps of %u block columns", threads, C->block_cols);
    const uint64_t kk = (uint64_t)C->k * C->k;
    const size_t vsize = mg__bcsr_value_size(C->type);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        uint32_t *at = pos + (size_t)omp_get_thread_num() * C->block_cols;
#pragma omp for schedule(dynamic, 16)
        for (int64_t i = 0; i < (int64_t)C->block_rows; i++) {
            const uint64_t first = C->offsets[i];
            for (uint64_t p = first; p < C->offsets[i + 1]; p++) at[C->bcols[p]] = (uint32_t)(p - first);
            for (uint64_t a = A->offsets[i]; a < A->offsets[i + 1]; a++) {
                const uint32_t l = A->bcols[a];
                const char *ablk = (const char *)A->values + a * kk * vsize;
                for (uint64_t b = B->offsets[l]; b < B->offsets[l + 1]; b++) {
                    const char *bblk = (const char *)B->values + b * kk * vsize;
                    char *cblk = (char *)C->values + (first + at[B->bcols[b]]) * kk * vsize;
                    if (C->type == MG_BCSR_UINT64)
                        mac_u64((uint64_t *)cblk, (const uint64_t *)ablk, (const uint64_t *)bblk, C->k);
                    else if (C->type == MG_BCSR_FLOAT)
                        mac_f32((float *)cblk, (const float *)ablk, (const float *)bblk, C->k);
                    else
                        mac_f64((double *)cblk, (const double *)ablk, (const double *)bblk, C->k);
                }
            }
        }
    }
    mg__free(pos);
    return MG_SUCCESS;
}

void mg_bcsr_multiply_options_init(mg_bcsr_multiply_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->device = 0;
}

mg_status mg_bcsr_multiply(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr *C,
                           const mg_bcsr_multiply_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (C == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_multiply: C is NULL");
    *C = NULL;
    if ((status = mg__check_bcsr(ctx, A, "mg_bcsr_multiply: A")) != MG_SUCCESS ||
        (status = mg__check_bcsr(ctx, B, "mg_bcsr_multiply: B")) != MG_SUCCESS)
        return status;
    if (A->cols != B->rows)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_bcsr_multiply: A is %u x %u but B is %u x %u: A's columns must equal "
                         "B's rows", A->rows, A->cols, B->rows, B->cols);
    if (A->k != B->k)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_bcsr_multiply: A has blocks of side %u but B of side %u", A->k, B->k);
    if (A->type != B->type)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_bcsr_multiply: A holds %s values but B %s", type_name(A->type),
                         type_name(B->type));
    mg_bcsr_multiply_options defaults;
    if (opts == NULL) {
        mg_bcsr_multiply_options_init(&defaults);
        opts = &defaults;
    }
    mg_bcsr c = NULL;
    uint64_t pairs = 0;
    for (uint64_t a = 0; a < A->nblocks; a++) pairs += B->offsets[A->bcols[a] + 1] - B->offsets[A->bcols[a]];
    const bool parallel = pairs * A->k > BCSR_SERIAL_WORK;
    const structure_source s = {.A = A, .B = B, .k = A->k};
    MG__TRY(build_structure(ctx, "mg_bcsr_multiply", &s, A->rows, B->cols, A->k, A->type, parallel,
                            &c));
    if (mg_context_backend(ctx) == MG_BACKEND_GPU)
        MG__TRY(mg__gpu_bcsr_values(ctx, A, B, c, opts));
    else
        MG__TRY(cpu_values(ctx, A, B, c, parallel));
    *C = c;
    c = NULL;
cleanup:
    mg_bcsr_free(&c);
    return status;
}

#ifndef MG_HAVE_CUDA
mg_status mg__gpu_bcsr_values(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr C,
                              const mg_bcsr_multiply_options *opts) {
    (void)A;
    (void)B;
    (void)C;
    (void)opts;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_bcsr_multiply: this build has no CUDA backend");
}
#endif

/* ---- the verifier ------------------------------------------------------------------------------ */

static double value_at(const mg_bcsr B, uint64_t t, uint64_t *u) {
    if (B->type == MG_BCSR_FLOAT) return ((const float *)B->values)[t];
    if (B->type == MG_BCSR_DOUBLE) return ((const double *)B->values)[t];
    *u = ((const uint64_t *)B->values)[t];
    return (double)*u;
}

mg_status mg_check_bcsr(mg_context ctx, const mg_bcsr want, const mg_bcsr got) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_bcsr(ctx, want, "mg_check_bcsr: want")) != MG_SUCCESS ||
        (status = mg__check_bcsr(ctx, got, "mg_check_bcsr: got")) != MG_SUCCESS)
        return status;
    if (want->rows != got->rows || want->cols != got->cols || want->k != got->k ||
        want->type != got->type)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_check_bcsr: want is %u x %u (blocks %u, %s) but got %u x %u (blocks "
                         "%u, %s)", want->rows, want->cols, want->k, type_name(want->type),
                         got->rows, got->cols, got->k, type_name(got->type));
    const uint32_t k = want->k;
    const uint64_t kk = (uint64_t)k * k;
    const double rtol = want->type == MG_BCSR_FLOAT ? 1e-4 : 1e-10, atol = 1e-30;
    for (uint32_t i = 0; i < want->block_rows; i++) {
        uint64_t p = want->offsets[i], q = got->offsets[i];
        const uint64_t pe = want->offsets[i + 1], qe = got->offsets[i + 1];
        while (p < pe || q < qe) {
            const uint32_t jw = p < pe ? want->bcols[p] : UINT32_MAX;
            const uint32_t jg = q < qe ? got->bcols[q] : UINT32_MAX;
            const uint32_t j = jw < jg ? jw : jg;
            for (uint64_t t = 0; t < kk; t++) {
                uint64_t uw = 0, ug = 0;
                const double w = jw == j ? value_at(want, p * kk + t, &uw) : 0;
                const double g = jg == j ? value_at(got, q * kk + t, &ug) : 0;
                const bool same = want->type == MG_BCSR_UINT64
                                      ? uw == ug
                                      : (w == g || (isnan(w) && isnan(g)) ||
                                         fabs(w - g) <= rtol * fmax(fabs(w), fabs(g)) + atol);
                if (same) continue;
                const uint64_t r = (uint64_t)i * k + t / k, c = (uint64_t)j * k + t % k;
                if (want->type == MG_BCSR_UINT64)
                    return mg__error(ctx, MG_INVALID_ARGUMENT,
                                     "mg_check_bcsr: entry (%llu, %llu) is %llu but should be %llu",
                                     (unsigned long long)r, (unsigned long long)c,
                                     (unsigned long long)ug, (unsigned long long)uw);
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "mg_check_bcsr: entry (%llu, %llu) is %.17g but should be %.17g",
                                 (unsigned long long)r, (unsigned long long)c, g, w);
            }
            if (jw == j) p++;
            if (jg == j) q++;
        }
    }
    return MG_SUCCESS;
}
