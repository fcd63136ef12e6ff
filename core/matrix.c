/*
 * matrix.c — sparse matrix objects: building CSR from coordinates, the CSC on demand, a graph's
 * adjacency as a matrix view, a copy of a pattern with new values (an SDDMM's result, as a
 * matrix), and the read-only accessors.
 *
 * Build: a stable counting sort by column, then a stable counting sort of that by row (an LSD radix
 * sort of the entries by (row, column)). Each row then holds its entries in column order, and
 * entries at one position stay in input order, so duplicates are adjacent and are summed in input
 * order: the result does not depend on the thread count. No comparison sort is needed, and no row
 * length limits it. The CSC is the second pass alone, run on the CSR.
 */
#include "dist.h"
#include "mg_internal.h"

#include <omp.h>

/* Below this many entries one thread builds faster than a team starts. */
#define PARALLEL_ENTRIES (1u << 16)

mg_status mg__check_matrix_or_share(mg_context ctx, const mg_matrix A, const char *what) {
    if (A == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    if (A->magic != MG__MAGIC_MATRIX)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_matrix", what);
    return MG_SUCCESS;
}

mg_status mg__check_matrix(mg_context ctx, const mg_matrix A, const char *what) {
    mg_status status = mg__check_matrix_or_share(ctx, A, what);
    if (status == MG_SUCCESS && mg__matrix_is_share(A))
        status = mg__error(ctx, MG_UNAVAILABLE,
                           "%s views a graph split over ranks (this rank holds only its share), "
                           "which this call cannot use yet: of the sparse layer, only mg_spmv runs "
                           "on such a view",
                           what);
    return status;
}

static size_t value_size(mg_values type) {
    return type == MG_VALUES_DOUBLE ? 8 : type == MG_VALUES_FLOAT ? 4 : 0;
}

static void copy_value(void *dst, uint64_t to, const void *src, uint64_t from, size_t size) {
    if (size == 8) ((uint64_t *)dst)[to] = ((const uint64_t *)src)[from];
    else if (size == 4) ((uint32_t *)dst)[to] = ((const uint32_t *)src)[from];
}

static void free_csr(mg__csr *c) {
    mg__free(c->offsets);
    mg__free(c->indices);
    mg__free(c->weights);
    memset(c, 0, sizeof *c);
}

/* ---- stable counting sort ---------------------------------------------------------------------- */

/* n entries in order; entry k goes to bucket key[k] and stores payload[k] or, when payload is NULL,
 * its group g (group_offsets[g] <= k < group_offsets[g + 1], groups groups): the CSR's row when
 * the entries are a CSR's. */
typedef struct {
    uint64_t n;
    const uint32_t *key;
    const uint32_t *payload;
    const uint64_t *group_offsets;
    uint32_t groups;
    const void *values; /* value_size bytes per entry, or NULL */
    size_t value_size;
} bucket_input;

/* Visits every entry k in order with its payload p (as BODY), on the calling thread. */
#define FOR_ENTRIES(in, k, p, BODY)                                                                \
    do {                                                                                           \
        if ((in)->payload != NULL) {                                                               \
            for (uint64_t k = 0; k < (in)->n; k++) {                                               \
                const uint32_t p = (in)->payload[k];                                               \
                BODY;                                                                              \
            }                                                                                      \
        } else {                                                                                   \
            for (uint32_t p = 0; p < (in)->groups; p++)                                            \
                for (uint64_t k = (in)->group_offsets[p]; k < (in)->group_offsets[p + 1]; k++) {   \
                    BODY;                                                                          \
                }                                                                                  \
        }                                                                                          \
    } while (0)

/* out = the entries bucketed by key (keys < nkeys): offsets nkeys + 1, indices the payloads,
 * weights the values, each bucket in input order. Each thread owns a range of buckets and reads
 * every entry, writing only its own: no atomics, and the order is the input's whatever the
 * schedule (as core/graph.c's build). */
static mg_status bucket_entries(mg_context ctx, const char *call, const bucket_input *in,
                                uint32_t nkeys, mg__csr *out) {
    mg_status status = MG_SUCCESS;
    mg__csr c = {0};
    uint64_t *cursor = NULL;
    const bool parallel = in->n >= PARALLEL_ENTRIES;
    const size_t vsize = in->values != NULL ? in->value_size : 0;

    c.offsets = mg__calloc((size_t)nkeys + 1, sizeof *c.offsets);
    cursor = mg__malloc(mg__mul_size((size_t)nkeys + 1, sizeof *cursor));
    c.indices = mg__malloc(mg__mul_size((size_t)in->n, sizeof *c.indices));
    if (vsize > 0) c.weights = mg__malloc(mg__mul_size((size_t)in->n, vsize));
    if (c.offsets == NULL || cursor == NULL || c.indices == NULL || (vsize > 0 && c.weights == NULL))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for %llu entries in %u rows or columns",
                 call, (unsigned long long)in->n, nkeys);

    uint64_t *count = c.offsets;
#pragma omp parallel if (parallel)
    {
        const uint32_t t = (uint32_t)omp_get_thread_num(), T = (uint32_t)omp_get_num_threads();
        const uint32_t lo = (uint32_t)((uint64_t)nkeys * t / T);
        const uint32_t hi = (uint32_t)((uint64_t)nkeys * (t + 1) / T);
        for (uint64_t k = 0; k < in->n; k++) {
            const uint32_t b = in->key[k];
            if (b - lo < hi - lo) count[b]++;
        }
    }
    const uint64_t total = mg__exclusive_scan_u64(c.offsets, (size_t)nkeys + 1);
    memcpy(cursor, c.offsets, ((size_t)nkeys + 1) * sizeof *cursor);

    /* The buckets now split by entry count, for balance. */
#pragma omp parallel if (parallel)
    {
        const uint32_t t = (uint32_t)omp_get_thread_num(), T = (uint32_t)omp_get_num_threads();
        const uint32_t lo = mg__row_of_edge(c.offsets, nkeys, total * t / T);
        const uint32_t hi = t + 1 == T ? nkeys : mg__row_of_edge(c.offsets, nkeys, total * (t + 1) / T);
        FOR_ENTRIES(in, k, p, {
            const uint32_t b = in->key[k];
            if (b - lo < hi - lo) {
                const uint64_t at = cursor[b]++;
                c.indices[at] = p;
                copy_value(c.weights, at, in->values, k, vsize);
            }
        });
    }
    *out = c;
    memset(&c, 0, sizeof c);

cleanup:
    free_csr(&c);
    mg__free(cursor);
    return status;
}

/* Sums the adjacent duplicates of every row of c (rows sorted, duplicates in input order) and
 * compacts; nnz is updated. Pattern duplicates just merge. */
static mg_status merge_duplicates(mg_context ctx, const char *call, mg__csr *c, uint32_t rows,
                                  uint64_t *nnz, mg_values type) {
    mg_status status = MG_SUCCESS;
    uint64_t *kept = NULL;
    mg__csr merged = {0};
    const size_t vsize = value_size(type);

    kept = mg__malloc(mg__mul_size((size_t)rows + 1, sizeof *kept));
    if (kept == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory merging duplicates", call);

    /* In place within each row: a row's first k entries are its merged ones. */
#pragma omp parallel for schedule(dynamic, 512) if (*nnz >= PARALLEL_ENTRIES)
    for (int64_t r = 0; r < (int64_t)rows; r++) {
        const uint64_t lo = c->offsets[r], hi = c->offsets[r + 1];
        uint64_t k = lo;
        for (uint64_t e = lo; e < hi; e++) {
            if (e > lo && c->indices[e] == c->indices[k - 1]) {
                if (type == MG_VALUES_DOUBLE) ((double *)c->weights)[k - 1] += ((double *)c->weights)[e];
                else if (type == MG_VALUES_FLOAT) ((float *)c->weights)[k - 1] += ((float *)c->weights)[e];
                continue;
            }
            c->indices[k] = c->indices[e];
            copy_value(c->weights, k, c->weights, e, vsize);
            k++;
        }
        kept[r] = k - lo;
    }
    kept[rows] = 0;
    const uint64_t total = mg__exclusive_scan_u64(kept, (size_t)rows + 1);
    if (total == *nnz) goto cleanup; /* no duplicates: c is final */

    merged.offsets = kept;
    kept = NULL;
    merged.indices = mg__malloc(mg__mul_size((size_t)total, sizeof *merged.indices));
    if (vsize > 0) merged.weights = mg__malloc(mg__mul_size((size_t)total, vsize));
    if (merged.indices == NULL || (vsize > 0 && merged.weights == NULL))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for %llu merged entries", call,
                 (unsigned long long)total);
#pragma omp parallel for schedule(dynamic, 512) if (*nnz >= PARALLEL_ENTRIES)
    for (int64_t r = 0; r < (int64_t)rows; r++) {
        const uint64_t from = c->offsets[r], to = merged.offsets[r];
        const uint64_t len = merged.offsets[r + 1] - to;
        memcpy(merged.indices + to, c->indices + from, len * sizeof *merged.indices);
        if (vsize > 0) memcpy((char *)merged.weights + to * vsize, (char *)c->weights + from * vsize, len * vsize);
    }
    free_csr(c);
    *c = merged;
    memset(&merged, 0, sizeof merged);
    *nnz = total;

cleanup:
    mg__free(kept);
    free_csr(&merged);
    return status;
}

/* ---- construction ------------------------------------------------------------------------------ */

mg_status mg__matrix_build(mg_context ctx, const char *call, mg_matrix *A, uint32_t rows,
                           uint32_t cols, uint64_t nnz, const uint32_t *row_ids,
                           const uint32_t *col_ids, const void *values, mg_values type,
                           bool declared_symmetric, int index_base) {
    mg_status status = MG_SUCCESS;
    mg_matrix M = NULL;
    mg__csr by_col = {0};
    const double t0 = omp_get_wtime();

    M = mg__calloc(1, sizeof *M);
    if (M == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory allocating a matrix", call);
    M->magic = MG__MAGIC_MATRIX;
    M->rows = rows;
    M->cols = cols;
    M->values = type;
    M->declared_symmetric = declared_symmetric;
    M->index_base = index_base;
    M->owns_csr = true;
    M->owns_csc = true;

    const bucket_input first = {.n = nnz, .key = col_ids, .payload = row_ids,
                                .values = type != MG_VALUES_NONE ? values : NULL,
                                .value_size = value_size(type)};
    MG__TRY(bucket_entries(ctx, call, &first, cols, &by_col));
    const bucket_input second = {.n = nnz, .key = by_col.indices, .group_offsets = by_col.offsets,
                                 .groups = cols, .values = by_col.weights,
                                 .value_size = value_size(type)};
    MG__TRY(bucket_entries(ctx, call, &second, rows, &M->csr));
    free_csr(&by_col);
    M->nnz = nnz;
    MG__TRY(merge_duplicates(ctx, call, &M->csr, rows, &M->nnz, type));
    M->build_seconds = omp_get_wtime() - t0;
    *A = M;
    M = NULL;

cleanup:
    free_csr(&by_col);
    mg_matrix_free(&M);
    return status;
}

mg_status mg_matrix_create_from_coo(mg_context ctx, mg_matrix *A, uint32_t rows, uint32_t cols,
                                    uint64_t nnz, const uint32_t *row_ids, const uint32_t *col_ids,
                                    const void *values, mg_values type) {
    static const char call[] = "mg_matrix_create_from_coo";
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (A == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: A is NULL", call);
    *A = NULL;
    if (rows > INT32_MAX || cols > INT32_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: %u x %u is too large (rows and cols must be below 2^31)", call, rows,
                         cols);
    if (type != MG_VALUES_NONE && type != MG_VALUES_FLOAT && type != MG_VALUES_DOUBLE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: unknown value type %d", call, (int)type);
    /* Every array below is at most 8 bytes per entry; past this the sizes would overflow. */
    if (nnz > (uint64_t)(SIZE_MAX / 16))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: nnz = %llu is too large", call,
                         (unsigned long long)nnz);
    if (nnz > 0 && (row_ids == NULL || col_ids == NULL))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: row_ids and col_ids must not be NULL when nnz > 0", call);
    if (nnz > 0 && type != MG_VALUES_NONE && values == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: values is NULL but the value type is not MG_VALUES_NONE", call);

    /* Find whether any id is bad in parallel, then the first one serially. */
    int any_bad = 0;
#pragma omp parallel for reduction(| : any_bad) if (nnz >= PARALLEL_ENTRIES)
    for (int64_t k = 0; k < (int64_t)nnz; k++) any_bad |= row_ids[k] >= rows || col_ids[k] >= cols;
    if (any_bad)
        for (uint64_t k = 0; k < nnz; k++) {
            if (row_ids[k] >= rows)
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "%s: entry %llu has row id %u, out of range (rows = %u)", call,
                                 (unsigned long long)k, row_ids[k], rows);
            if (col_ids[k] >= cols)
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "%s: entry %llu has column id %u, out of range (cols = %u)", call,
                                 (unsigned long long)k, col_ids[k], cols);
        }
    return mg__matrix_build(ctx, call, A, rows, cols, nnz, row_ids, col_ids, values, type, false, 0);
}

mg_status mg_graph_matrix(mg_context ctx, const mg_graph g, mg_matrix *A) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (A == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_matrix: A is NULL");
    *A = NULL;
    if ((status = mg__check_graph(ctx, g, "mg_graph_matrix: g")) != MG_SUCCESS) return status;
    if (g->n > INT32_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_matrix: g has %u vertices (a matrix has fewer than 2^31 rows)",
                         g->n);
    const double t0 = omp_get_wtime();
    mg_matrix M = mg__calloc(1, sizeof *M);
    if (M == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_graph_matrix: out of memory allocating a matrix");
    M->magic = MG__MAGIC_MATRIX;
    M->rows = M->cols = g->n;
    M->nnz = g->m;
    /* a share is stored directed (its arcs into this rank's vertices); the whole graph may not be */
    M->declared_symmetric = g->dist != NULL ? !g->dist->directed : !g->directed;
    M->index_base = g->index_base;
    M->graph = g;
    M->csr = g->out;
    M->values = g->weight_type == MG_WEIGHT_NONE ? MG_VALUES_NONE
              : g->weight_type == MG_WEIGHT_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    if (g->weight_type == MG_WEIGHT_INT32) {
        double *converted = mg__malloc(mg__mul_size((size_t)g->m, sizeof *converted));
        if (converted == NULL) {
            mg__free(M);
            return mg__error(ctx, MG_OUT_OF_MEMORY,
                             "mg_graph_matrix: out of memory converting %llu int32 weights",
                             (unsigned long long)g->m);
        }
        const int32_t *w = g->out.weights;
#pragma omp parallel for schedule(static) if (g->m >= PARALLEL_ENTRIES)
        for (int64_t e = 0; e < (int64_t)g->m; e++) converted[e] = w[e];
        M->converted = converted;
        M->csr.weights = converted;
    }
    /* An undirected graph's CSC is its CSR; a directed graph's in-edges are exactly the CSC, but
     * with int32 weights they would need a second converted array: built on first use instead. */
    if (!g->directed) M->csc = M->csr;
    else if (g->weight_type != MG_WEIGHT_INT32) M->csc = g->in;
    M->build_seconds = omp_get_wtime() - t0;
    *A = M;
    return MG_SUCCESS;
}

mg_status mg_matrix_with_values(mg_context ctx, const mg_matrix S, const mg_dense v, mg_matrix *out) {
    static const char call[] = "mg_matrix_with_values";
    mg_status status = mg__check_context(ctx);
    mg_matrix M = NULL;
    if (status != MG_SUCCESS) return status;
    if (out == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: out is NULL", call);
    *out = NULL;
    MG__TRY(mg__check_matrix(ctx, S, "mg_matrix_with_values: S"));
    MG__TRY(mg__check_dense(ctx, v, "mg_matrix_with_values: v"));
    if (v->rows != S->nnz || v->cols != 1)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "%s: v is %u x %u but S has %llu stored entries (v must be nnz(S) x 1)", call,
                 v->rows, v->cols, (unsigned long long)S->nnz);
    if (v->type != MG_FLOAT && v->type != MG_DOUBLE)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "%s: v must be MG_FLOAT or MG_DOUBLE", call);
    MG__TRY(mg__dense_need_host(ctx, v));
    const double t0 = omp_get_wtime();
    const mg_values type = v->type == MG_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    const size_t offsets = ((size_t)S->rows + 1) * sizeof *M->csr.offsets;
    const size_t indices = mg__mul_size((size_t)S->nnz, sizeof *M->csr.indices);
    const size_t values = mg__mul_size((size_t)S->nnz, value_size(type));
    M = mg__calloc(1, sizeof *M);
    if (M == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory allocating a matrix", call);
    M->magic = MG__MAGIC_MATRIX;
    M->owns_csr = true;
    M->owns_csc = true;
    M->csr.offsets = mg__malloc(offsets);
    M->csr.indices = mg__malloc(indices);
    M->csr.weights = mg__malloc(values);
    if (M->csr.offsets == NULL || M->csr.indices == NULL || M->csr.weights == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for %llu entries", call,
                 (unsigned long long)S->nnz);
    memcpy(M->csr.offsets, S->csr.offsets, offsets);
    memcpy(M->csr.indices, S->csr.indices, indices);
    memcpy(M->csr.weights, v->data, values);
    M->rows = S->rows;
    M->cols = S->cols;
    M->nnz = S->nnz;
    M->values = type;
    /* S's numbering, so that what is written of M reads as S did; not S's symmetry, which v's
     * values need not have. */
    M->index_base = S->index_base;
    M->build_seconds = omp_get_wtime() - t0;
    *out = M;
    M = NULL;

cleanup:
    mg_matrix_free(&M);
    return status;
}

mg_status mg_matrix_free(mg_matrix *A) {
    if (A == NULL || *A == NULL) return MG_SUCCESS;
    mg_matrix M = *A;
    if (M->magic != MG__MAGIC_MATRIX) return MG_INVALID_OBJECT;
    M->magic = MG__MAGIC_FREED;
    if (M->free_gpu != NULL) M->free_gpu(M->gpu);
    if (M->owns_csc) free_csr(&M->csc);
    if (M->owns_csr) free_csr(&M->csr);
    mg__free(M->converted);
    mg__free(M);
    *A = NULL;
    return MG_SUCCESS;
}

/* ---- accessors --------------------------------------------------------------------------------- */

static bool live(const mg_matrix A) { return A != NULL && A->magic == MG__MAGIC_MATRIX; }

uint32_t mg_matrix_rows(const mg_matrix A) { return live(A) ? A->rows : 0; }
uint32_t mg_matrix_cols(const mg_matrix A) { return live(A) ? A->cols : 0; }
uint64_t mg_matrix_nnz(const mg_matrix A) {
    return live(A) ? (mg__matrix_is_share(A) ? A->graph->dist->m : A->nnz) : 0;
}
mg_values mg_matrix_values(const mg_matrix A) { return live(A) ? A->values : MG_VALUES_NONE; }
bool mg_matrix_declared_symmetric(const mg_matrix A) { return live(A) && A->declared_symmetric; }
double mg_matrix_build_seconds(const mg_matrix A) { return live(A) ? A->build_seconds : 0.0; }

static void view(const mg__csr *c, const uint64_t **offsets, const uint32_t **indices,
                 const void **values) {
    if (offsets) *offsets = c->offsets;
    if (indices) *indices = c->indices;
    if (values) *values = c->weights;
}

mg_status mg_matrix_csr(const mg_matrix A, const uint64_t **offsets, const uint32_t **indices,
                        const void **values) {
    if (A == NULL) return MG_INVALID_ARGUMENT;
    if (!live(A)) return MG_INVALID_OBJECT;
    view(&A->csr, offsets, indices, values);
    return MG_SUCCESS;
}

mg_status mg_matrix_csc(mg_context ctx, const mg_matrix A, const uint64_t **offsets,
                        const uint32_t **indices, const void **values) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_matrix_or_share(ctx, A, "mg_matrix_csc: A")) != MG_SUCCESS) return status;
    if (A->csc.offsets == NULL) {
        /* The CSR's entries in row order, bucketed by column: each column's rows come sorted. */
        const bucket_input in = {.n = A->nnz, .key = A->csr.indices, .group_offsets = A->csr.offsets,
                                 .groups = A->rows, .values = A->csr.weights,
                                 .value_size = value_size(A->values)};
        if ((status = bucket_entries(ctx, "mg_matrix_csc", &in, A->cols, &A->csc)) != MG_SUCCESS)
            return status;
        A->owns_csc = true;
    }
    view(&A->csc, offsets, indices, values);
    return MG_SUCCESS;
}
