/*
 * matrix_file.c — sparse matrices in Matrix Market coordinate files: mg_matrix_read and
 * mg_matrix_write.
 *
 * The header is matrix_market.c's, the body is parsed in parallel by text_reader.c (values as
 * float or double), then the matrix is built as from coordinates: duplicates summed, explicit zeros
 * kept. A symmetric file's off-diagonal entries are mirrored (negated when skew-symmetric), from
 * whichever triangle they are in, as scipy's mmread does. Values: anything strtod reads, so "inf"
 * and "nan" are accepted (a matrix is data, not a graph's edge lengths); a finite value too large
 * for float fails a float read rather than become inf.
 */
#include "io_internal.h"

#include <omp.h>

void mg_matrix_read_options_init(mg_matrix_read_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->values = MG_VALUES_DOUBLE;
    opts->max_dimension = 0;
}

static const mg__mm_reader reader = {
    .call = "mg_matrix_read",
    .banner = "%%MatrixMarket matrix coordinate <pattern|integer|real> "
              "<general|symmetric|skew-symmetric>",
    .wrong_format = "a dense 'array' file: read it with mg_dense_read (mg_matrix_read reads "
                    "'coordinate' files)",
    .fields = "pattern, integer or real",
    .symmetries = "general, symmetric or skew-symmetric",
    .symmetry_ok = 1u << MG__MM_GENERAL | 1u << MG__MM_SYMMETRIC | 1u << MG__MM_SKEW,
};

/* Appends the mirror (j, i) of every off-diagonal entry (i, j), negated when skew; the arrays
 * grow to hold them. */
static mg_status mirror(mg_context ctx, mg__coo *coo, mg_values type, bool skew) {
    const uint64_t m = coo->m;
    const int64_t n = (int64_t)m;
    uint64_t off = 0;
#pragma omp parallel for reduction(+ : off) schedule(static)
    for (int64_t k = 0; k < n; k++) off += coo->src[k] != coo->dst[k];
    if (off == 0) return MG_SUCCESS;
    const size_t vsize = type == MG_VALUES_DOUBLE ? 8 : 4;
    mg_status status = mg__coo_reserve(ctx, coo, m + off);
    if (status != MG_SUCCESS) return status;
    void *values = coo->weights != NULL ? mg__realloc(coo->weights, mg__mul_size((size_t)(m + off), vsize)) : NULL;
    if (coo->weights != NULL && values == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_matrix_read: out of memory mirroring %llu entries",
                         (unsigned long long)off);
    coo->weights = values;

    /* Each thread mirrors a range of entries into its own range of the tail. */
    const int threads = m >= (1u << 16) ? omp_get_max_threads() : 1;
    uint64_t *start = mg__calloc((size_t)threads + 1, sizeof *start);
    if (start == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_matrix_read: out of memory mirroring entries");
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
        const uint64_t lo = m * (uint64_t)t / (uint64_t)T, hi = m * (uint64_t)(t + 1) / (uint64_t)T;
        uint64_t mine = 0;
        for (uint64_t k = lo; k < hi; k++) mine += coo->src[k] != coo->dst[k];
        start[t + 1] = mine;
#pragma omp barrier
#pragma omp single
        for (int i = 0; i < T; i++) start[i + 1] += start[i];
        uint64_t at = m + start[t];
        for (uint64_t k = lo; k < hi; k++) {
            if (coo->src[k] == coo->dst[k]) continue;
            coo->src[at] = coo->dst[k];
            coo->dst[at] = coo->src[k];
            if (type == MG_VALUES_DOUBLE) {
                const double v = ((double *)coo->weights)[k];
                ((double *)coo->weights)[at] = skew ? -v : v;
            } else if (type == MG_VALUES_FLOAT) {
                const float v = ((float *)coo->weights)[k];
                ((float *)coo->weights)[at] = skew ? -v : v;
            }
            at++;
        }
    }
    mg__free(start);
    coo->m = m + off;
    return MG_SUCCESS;
}

mg_status mg_matrix_read(mg_context ctx, mg_matrix *A, const char *path,
                         const mg_matrix_read_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__mapped_file file = {0};
    mg__coo coo;
    memset(&coo, 0, sizeof coo);
    mg_matrix_read_options defaults;
    if (A == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_matrix_read: A is NULL");
    *A = NULL;
    if (path == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_matrix_read: path is NULL");
    if (opts == NULL) {
        mg_matrix_read_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->values != MG_VALUES_NONE && opts->values != MG_VALUES_FLOAT &&
        opts->values != MG_VALUES_DOUBLE)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_matrix_read: unknown opts->values %d",
                 (int)opts->values);

    MG__TRY(mg__io_map(ctx, reader.call, path, &file));
    mg__mm_header h;
    MG__TRY(mg__mm_read_header(ctx, &reader, &file, &h));
    if (h.field == MG__WCOL_NONE && h.symmetry == MG__MM_SKEW)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_matrix_read: %s:1: a pattern matrix cannot be skew-symmetric (it has no "
                 "values to negate)", path);
    char why[300];
    const uint64_t limit = mg__io_size_limit(
        opts->max_dimension, "the read option max_dimension", "rows or columns", INT32_MAX,
        "a matrix has fewer than 2^31 rows and columns", file.size, why, sizeof why);
    if (h.rows > limit || h.cols > limit)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_matrix_read: %s:%llu: the size line declares %llu x %llu, but %s", path,
                 (unsigned long long)h.size_line, (unsigned long long)h.rows,
                 (unsigned long long)h.cols, why);

    /* With opts->values NONE the values are still read: a skew file's diagonal is checked, and
     * the file's lines are held to the same rules whatever is kept. */
    const mg_values type = h.field == MG__WCOL_NONE ? MG_VALUES_NONE : opts->values;
    const mg_values parsed = h.field == MG__WCOL_NONE         ? MG_VALUES_NONE
                             : opts->values == MG_VALUES_NONE ? MG_VALUES_DOUBLE
                                                              : opts->values;
    mg__text_body body = {
        .kind = MG__TEXT_MATRIX_MARKET, .call = reader.call, .path = path, .body = h.body.p,
        .body_size = (size_t)(h.body.end - h.body.p), .body_line = h.body.line, .one_based = true,
        .row_max = h.rows, .col_max = h.cols, .declared = h.entries, .declared_line = h.size_line,
        .weights = h.field, .values = parsed, .skew_symmetric = h.symmetry == MG__MM_SKEW,
        .allow_negative = true,
    };
    MG__TRY(mg__parse_text_body(ctx, &body, &coo));
    mg__io_unmap(&file); /* the text is no longer needed: free it before the build */
    if (h.symmetry != MG__MM_GENERAL)
        MG__TRY(mirror(ctx, &coo, parsed, h.symmetry == MG__MM_SKEW));
    MG__TRY(mg__matrix_build(ctx, "mg_matrix_read", A, (uint32_t)h.rows, (uint32_t)h.cols, coo.m,
                             coo.src, coo.dst, coo.weights, type, h.symmetry != MG__MM_GENERAL, 1));

cleanup:
    mg__io_unmap(&file);
    mg__coo_free(&coo);
    return status;
}

#define OUT_BUFFER (1u << 20)

mg_status mg_matrix_write(mg_context ctx, const mg_matrix A, const char *path) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_matrix(ctx, A, "mg_matrix_write: A")) != MG_SUCCESS) return status;
    if (path == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_matrix_write: path is NULL");
    mg__atomic_file af = {0};
    char *buf = mg__malloc(OUT_BUFFER);
    if (buf == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_matrix_write: out of memory");
    MG__TRY(mg__atomic_open(ctx, path, "mg_matrix_write", &af));
    const float *vf = A->values == MG_VALUES_FLOAT ? A->csr.weights : NULL;
    const double *vd = A->values == MG_VALUES_DOUBLE ? A->csr.weights : NULL;
    char *p = buf + snprintf(buf, OUT_BUFFER,
                             "%%%%MatrixMarket matrix coordinate %s general\n"
                             "%% written by mgraph %d.%d.%d\n"
                             "%u %u %llu\n",
                             A->values == MG_VALUES_NONE ? "pattern" : "real", MG_VERSION_MAJOR,
                             MG_VERSION_MINOR, MG_VERSION_PATCH, A->rows, A->cols,
                             (unsigned long long)A->nnz);
    for (uint32_t r = 0; r < A->rows; r++) {
        for (uint64_t e = A->csr.offsets[r]; e < A->csr.offsets[r + 1]; e++) {
            if ((size_t)(p - buf) > OUT_BUFFER - 128) {
                MG__TRY(mg__atomic_write(ctx, &af, buf, (size_t)(p - buf)));
                p = buf;
            }
            p = mg__io_put_u64(p, (uint64_t)r + 1);
            *p++ = ' ';
            p = mg__io_put_u64(p, (uint64_t)A->csr.indices[e] + 1);
            /* 17 significant digits give back the same double, 9 the same float */
            if (vd) p += snprintf(p, 40, " %.17g", vd[e]);
            else if (vf) p += snprintf(p, 40, " %.9g", (double)vf[e]);
            *p++ = '\n';
        }
    }
    MG__TRY(mg__atomic_write(ctx, &af, buf, (size_t)(p - buf)));
    MG__TRY(mg__atomic_commit(ctx, &af));

cleanup:
    mg__atomic_abort(&af);
    mg__free(buf);
    return status;
}
