/*
 * dense_file.c — dense matrices and vectors on disk: mg_dense_read (Matrix Market array files,
 * column-major as the format says, or plain text with one row per line) and mg_dense_write (Matrix
 * Market array, real general). Dense operands are small beside the sparse matrices they multiply,
 * so the parse is serial.
 */
#include "io_internal.h"

#include <math.h>

static const mg__mm_reader reader = {
    .call = "mg_dense_read",
    .array = true,
    .banner = "%%MatrixMarket matrix array <integer|real> general",
    .wrong_format = "a sparse 'coordinate' file: read it with mg_matrix_read (mg_dense_read "
                    "reads 'array' files and plain text)",
    .fields = "integer or real",
    .symmetries = "general",
    .symmetry_ok = 1u << MG__MM_GENERAL,
};

/* Plain text separates values by spaces, tabs or commas (a run of them is one separator). */
static bool separator(char c) { return mg__io_space(c) || c == ','; }

static const char *skip_separators(const char *p, const char *end) {
    while (p < end && separator(*p)) p++;
    return p;
}

static const char *value_end(const char *p, const char *end) {
    while (p < end && !separator(*p)) p++;
    return p;
}

/* A comment or blank line of plain text. */
static bool plain_skipped(const char *p, const char *end) {
    p = skip_separators(p, end);
    return p == end || *p == '#' || *p == '%';
}

/* Parses the value [s, e) into element i of X's data: an integer when `integer`, else anything
 * strtod reads (inf and nan too); a finite value out of float's range fails a float read. */
static mg_status parse_value(mg_context ctx, const char *path, uint64_t line, const char *s,
                             const char *e, bool integer, mg_dense X, size_t i) {
    double d = 0;
    const char *q = s;
    int r;
    if (integer) {
        int64_t v = 0;
        r = mg__io_parse_i64(&q, e, &v);
        d = (double)v;
    } else {
        r = mg__io_parse_real(&q, e, &d);
    }
    if (r != MG__TOK_OK || q != e)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, reader.call, path, line,
                                "value '%.*s' is not %s", mg__io_token_len(s, e), s,
                                integer ? "an integer (the file's field is 'integer')" : "a number");
    if (X->type == MG_DOUBLE) {
        ((double *)X->data)[i] = d;
        return MG_SUCCESS;
    }
    const float f = (float)d;
    if (isfinite(d) && !isfinite(f))
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, reader.call, path, line,
                                "value '%.*s' is outside the float range (read it as MG_DOUBLE)",
                                mg__io_token_len(s, e), s);
    ((float *)X->data)[i] = f;
    return MG_SUCCESS;
}

static mg_status read_array(mg_context ctx, const mg__mapped_file *file, mg_type type,
                            mg_dense *X) {
    mg_status status = MG_SUCCESS;
    mg_dense D = NULL;
    const char *path = file->path;
    mg__mm_header h;
    MG__TRY(mg__mm_read_header(ctx, &reader, file, &h));
    if (h.rows > UINT32_MAX || h.cols > UINT32_MAX)
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_dense_read: %s:%llu: %llu x %llu is too large (at most "
                 "%u rows and columns)", path, (unsigned long long)h.size_line,
                 (unsigned long long)h.rows, (unsigned long long)h.cols, UINT32_MAX);
    MG__TRY(mg_dense_create(ctx, &D, (uint32_t)h.rows, (uint32_t)h.cols, type));
    mg__line_cursor cur = h.body;
    const char *ls, *le;
    uint64_t line = h.size_line, k = 0;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *tok[2][2];
        const int ntok = mg__io_tokens(ls, le, tok, 2);
        if (ntok == 0 || *tok[0][0] == '%') continue;
        /* before the value: a token cut at a NUL would be reported as a bad number */
        MG__TRY(mg__io_check_text(ctx, reader.call, path, line, ls, le));
        if (k == h.entries)
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "mg_dense_read: %s:%llu: more values than the %llu x %llu declared on line %llu",
                     path, (unsigned long long)line, (unsigned long long)h.rows,
                     (unsigned long long)h.cols, (unsigned long long)h.size_line);
        if (ntok > 1)
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "mg_dense_read: %s:%llu: unexpected '%.*s' after the value (an array file "
                     "has one value per line)",
                     path, (unsigned long long)line, mg__io_token_len(tok[1][0], tok[1][1]),
                     tok[1][0]);
        /* column-major on disk, row-major in memory */
        const size_t at = (size_t)(k % h.rows) * h.cols + (size_t)(k / h.rows);
        MG__TRY(parse_value(ctx, path, line, tok[0][0], tok[0][1], h.field == MG__WCOL_INT, D, at));
        k++;
    }
    if (k < h.entries)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_dense_read: %s:%llu: the file ends after %llu values, but line %llu declares "
                 "%llu x %llu",
                 path, (unsigned long long)line, (unsigned long long)k,
                 (unsigned long long)h.size_line, (unsigned long long)h.rows,
                 (unsigned long long)h.cols);
    *X = D;
    D = NULL;

cleanup:
    mg_dense_free(&D);
    return status;
}

static mg_status read_plain(mg_context ctx, const mg__mapped_file *file, mg_type type,
                            mg_dense *X) {
    mg_status status = MG_SUCCESS;
    mg_dense D = NULL;
    const char *path = file->path;
    const char *ls, *le;
    uint64_t line = 0;

    /* Pass 1: the shape, every row as long as the first. */
    uint64_t rows = 0, cols = 0, first_line = 0;
    mg__line_cursor cur = {file->data, file->data + file->size, 1};
    while (mg__next_line(&cur, &ls, &le, &line)) {
        if (plain_skipped(ls, le)) continue;
        MG__TRY(mg__io_check_text(ctx, reader.call, path, line, ls, le));
        uint64_t n = 0;
        for (const char *p = skip_separators(ls, le); p < le; p = skip_separators(value_end(p, le), le))
            n++;
        if (rows == 0) {
            cols = n;
            first_line = line;
        } else if (n != cols) {
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "mg_dense_read: %s:%llu: the row has %llu value%s but the first row (line "
                     "%llu) has %llu: every row needs the same number",
                     path, (unsigned long long)line, (unsigned long long)n, n == 1 ? "" : "s",
                     (unsigned long long)first_line, (unsigned long long)cols);
        }
        rows++;
    }
    if (rows == 0)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_dense_read: %s:%llu: no values (only comments and blank lines)", path,
                 (unsigned long long)line);
    if (rows > UINT32_MAX || cols > UINT32_MAX)
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_dense_read: %s: %llu x %llu is too large (at most %u rows "
                 "and columns)", path, (unsigned long long)rows, (unsigned long long)cols,
                 UINT32_MAX);
    MG__TRY(mg_dense_create(ctx, &D, (uint32_t)rows, (uint32_t)cols, type));

    /* Pass 2: the values, row-major as written. */
    cur = (mg__line_cursor){file->data, file->data + file->size, 1};
    size_t i = 0;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        if (plain_skipped(ls, le)) continue;
        for (const char *p = skip_separators(ls, le); p < le;) {
            const char *e = value_end(p, le);
            MG__TRY(parse_value(ctx, path, line, p, e, false, D, i++));
            p = skip_separators(e, le);
        }
    }
    *X = D;
    D = NULL;

cleanup:
    mg_dense_free(&D);
    return status;
}

mg_status mg_dense_read(mg_context ctx, mg_dense *X, const char *path, mg_type type) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__mapped_file file = {0};
    if (X == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_dense_read: X is NULL");
    *X = NULL;
    if (path == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_dense_read: path is NULL");
    if (type != MG_FLOAT && type != MG_DOUBLE)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_dense_read: type must be MG_FLOAT or MG_DOUBLE (got %d)", (int)type);
    MG__TRY(mg__io_map(ctx, reader.call, path, &file));
    /* A Matrix Market file says so on its first line; anything else is plain text. */
    const char *tok[1][2];
    const char *nl = memchr(file.data, '\n', file.size);
    const int ntok = mg__io_tokens(file.data, nl ? nl : file.data + file.size, tok, 1);
    if (ntok > 0 && mg__io_token_is(tok[0][0], tok[0][1], "%%MatrixMarket"))
        MG__TRY(read_array(ctx, &file, type, X));
    else
        MG__TRY(read_plain(ctx, &file, type, X));

cleanup:
    mg__io_unmap(&file);
    return status;
}

mg_status mg_dense_write(mg_context ctx, const mg_dense X, const char *path) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_dense(ctx, X, "mg_dense_write: X")) != MG_SUCCESS) return status;
    if (path == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_dense_write: path is NULL");
    if ((status = mg__dense_need_host(ctx, X)) != MG_SUCCESS) return status;
    mg__atomic_file af = {0};
    MG__TRY(mg__atomic_open(ctx, path, "mg_dense_write", &af));
    if (fprintf(af.file, "%%%%MatrixMarket matrix array real general\n%% written by mgraph %d.%d.%d\n%u %u\n",
                MG_VERSION_MAJOR, MG_VERSION_MINOR, MG_VERSION_PATCH, X->rows, X->cols) < 0)
        MG__FAIL(ctx, MG_IO_ERROR, "mg_dense_write: error writing %s", path);
    /* column-major, as the format says; 17 significant digits give back a double, 9 a float */
    for (uint32_t c = 0; c < X->cols; c++)
        for (uint32_t r = 0; r < X->rows; r++) {
            const size_t i = (size_t)r * X->cols + c;
            const int w = X->type == MG_DOUBLE ? fprintf(af.file, "%.17g\n", ((const double *)X->data)[i])
                                               : fprintf(af.file, "%.9g\n", (double)((const float *)X->data)[i]);
            if (w < 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_dense_write: error writing %s", path);
        }
    MG__TRY(mg__atomic_commit(ctx, &af));

cleanup:
    mg__atomic_abort(&af);
    return status;
}
