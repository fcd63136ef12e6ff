/*
 * matrix_market.c — Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html): the
 * header (banner, comments, size line) that the graph, sparse matrix and dense readers share, the
 * graph reader and the graph writer.
 *
 * Convention: entry (i, j) is the edge i -> j (the row is the source), 1-based. A symmetric file
 * stores each undirected edge once; the graph builder adds the reverse direction. The body is
 * parsed in parallel by text_reader.c.
 */
#include "io_internal.h"

#include <math.h>

static mg_status size_token_error(mg_context ctx, const char *call, const char *path,
                                  uint64_t line, int r, bool array, const char *what,
                                  const char *tok[2]) {
    if (r == MG__TOK_MISSING)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, line,
                                array ? "the size line needs two numbers: rows columns (missing %s)"
                                      : "the size line needs three numbers: rows columns entries "
                                        "(missing %s)",
                                what);
    const char *why = r == MG__TOK_NEGATIVE ? "is negative"
                      : r == MG__TOK_OVERFLOW ? "is too large"
                                              : "is not a non-negative integer";
    return mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, line, "size line: %s '%.*s' %s",
                            what, mg__io_token_len(tok[0], tok[1]), tok[0], why);
}

static const char *const symmetry_names[4] = {"general", "symmetric", "skew-symmetric", "hermitian"};

mg_status mg__mm_read_header(mg_context ctx, const mg__mm_reader *reader,
                             const mg__mapped_file *file, mg__mm_header *h) {
    mg_status status = MG_SUCCESS;
    const char *call = reader->call, *path = file->path;
    memset(h, 0, sizeof *h);
    mg__line_cursor cur = {file->data, file->data + file->size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    mg__next_line(&cur, &ls, &le, &line); /* a mapped file is never empty */
    MG__TRY(mg__io_check_text(ctx, call, path, line, ls, le));

    /* Banner: %%MatrixMarket matrix <format> <field> <symmetry> */
    const char *tok[6][2];
    int ntok = mg__io_tokens(ls, le, tok, 6);
    if (ntok == 0 || !mg__io_token_is(tok[0][0], tok[0][1], "%%MatrixMarket"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "%s: %s:%llu: missing Matrix Market banner: the first line must be '%s'", call,
                 path, (unsigned long long)line, reader->banner);
    if (ntok < 5)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "%s: %s:%llu: incomplete banner: after %%%%MatrixMarket it needs "
                 "'matrix %s <field> <symmetry>' (found %d word%s)",
                 call, path, (unsigned long long)line, reader->array ? "array" : "coordinate",
                 ntok - 1, ntok == 2 ? "" : "s");
    if (ntok > 5)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "%s: %s:%llu: unexpected '%.*s' after the banner's symmetry keyword", call, path,
                 (unsigned long long)line, mg__io_token_len(tok[5][0], tok[5][1]), tok[5][0]);
#define TOK(i) mg__io_token_len(tok[i][0], tok[i][1]), tok[i][0]
    if (!mg__io_token_is(tok[1][0], tok[1][1], "matrix"))
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: object '%.*s' is not supported (only 'matrix')",
                 call, path, (unsigned long long)line, TOK(1));
    const char *format = reader->array ? "array" : "coordinate";
    const char *other = reader->array ? "coordinate" : "array";
    if (mg__io_token_is(tok[2][0], tok[2][1], other))
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: %s", call, path, (unsigned long long)line,
                 reader->wrong_format);
    if (!mg__io_token_is(tok[2][0], tok[2][1], format))
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: unknown format '%.*s' (expected '%s')", call,
                 path, (unsigned long long)line, TOK(2), format);
    h->array = reader->array;

    if (mg__io_token_is(tok[3][0], tok[3][1], "pattern") && !reader->array)
        h->field = MG__WCOL_NONE;
    else if (mg__io_token_is(tok[3][0], tok[3][1], "integer"))
        h->field = MG__WCOL_INT;
    else if (mg__io_token_is(tok[3][0], tok[3][1], "real"))
        h->field = MG__WCOL_REAL;
    else if (mg__io_token_is(tok[3][0], tok[3][1], "complex"))
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: complex values are not supported (%s)", call,
                 path, (unsigned long long)line, reader->fields);
    else
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: unknown field '%.*s' (expected %s)", call, path,
                 (unsigned long long)line, TOK(3), reader->fields);

    int sym = -1;
    for (int i = 0; i < 4; i++)
        if (mg__io_token_is(tok[4][0], tok[4][1], symmetry_names[i])) sym = i;
    if (sym < 0)
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: unknown symmetry '%.*s' (expected %s)", call,
                 path, (unsigned long long)line, TOK(4), reader->symmetries);
    if (!(reader->symmetry_ok & (1u << sym)))
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: '%.*s' matrices are not supported (%s)", call,
                 path, (unsigned long long)line, TOK(4), reader->symmetries);
    h->symmetry = (mg__mm_symmetry)sym;
#undef TOK

    /* Comments and blank lines, then the size line. */
    bool found = false;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *q = ls;
        while (q < le && mg__io_space(*q)) q++;
        if (q < le && *q != '%') {
            found = true;
            break;
        }
    }
    if (!found)
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: missing size line (%s) after the banner", call,
                 path, (unsigned long long)line + 1,
                 reader->array ? "rows columns" : "rows columns entries");
    h->size_line = line;
    MG__TRY(mg__io_check_text(ctx, call, path, line, ls, le));
    const int need = reader->array ? 2 : 3;
    ntok = mg__io_tokens(ls, le, tok, 4);
    static const char *const size_names[3] = {"rows", "columns", "entries"};
    uint64_t sizes[3] = {0, 0, 0};
    const char *q = ls;
    for (int i = 0; i < need; i++) {
        int r = mg__io_parse_u64(&q, le, &sizes[i]);
        if (r != MG__TOK_OK) {
            const char *t[2] = {i < ntok ? tok[i][0] : le, i < ntok ? tok[i][1] : le};
            status = size_token_error(ctx, call, path, line, r, reader->array, size_names[i], t);
            goto cleanup;
        }
    }
    if (ntok > need)
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: unexpected '%.*s' after the size line's %s numbers",
                 call, path, (unsigned long long)line, mg__io_token_len(tok[need][0], tok[need][1]),
                 tok[need][0], reader->array ? "two" : "three");
    h->rows = sizes[0];
    h->cols = sizes[1];
    if (h->symmetry != MG__MM_GENERAL && h->rows != h->cols)
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s:%llu: a %s matrix must be square (%llu x %llu)", call,
                 path, (unsigned long long)line, symmetry_names[h->symmetry],
                 (unsigned long long)h->rows, (unsigned long long)h->cols);
    h->body = cur;
    /* The lines left bound the entries before anything is allocated for them. */
    const size_t body_size = (size_t)(cur.end - cur.p);
    const uint64_t most = mg__io_most_lines(body_size);
    if (reader->array) {
        if (h->cols > 0 && h->rows > most / h->cols)
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "%s: %s:%llu: the size line declares %llu x %llu values, but the rest of the "
                     "file (%llu bytes) can hold at most %llu lines",
                     call, path, (unsigned long long)line, (unsigned long long)h->rows,
                     (unsigned long long)h->cols, (unsigned long long)body_size,
                     (unsigned long long)most);
        h->entries = h->rows * h->cols;
    } else {
        h->entries = sizes[2];
        if (h->entries > most)
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "%s: %s:%llu: the size line declares %llu entries, but the rest of "
                     "the file (%llu bytes) can hold at most %llu lines",
                     call, path, (unsigned long long)line, (unsigned long long)h->entries,
                     (unsigned long long)body_size, (unsigned long long)most);
    }

cleanup:
    return status;
}

mg_status mg__read_matrix_market(mg_context ctx, const char *path, const mg_read_options *opts,
                                 mg__coo *coo) {
    static const mg__mm_reader reader = {
        .call = "mg_graph_read",
        .banner = "%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>",
        .wrong_format = "dense 'array' files are not supported (only 'coordinate')",
        .fields = "pattern, integer or real",
        .symmetries = "general or symmetric",
        .symmetry_ok = 1u << MG__MM_GENERAL | 1u << MG__MM_SYMMETRIC,
    };
    mg_status status = MG_SUCCESS;
    mg__mapped_file file = {0};
    mg__mm_header h;
    memset(coo, 0, sizeof *coo);
    MG__TRY(mg__io_map(ctx, reader.call, path, &file));
    MG__TRY(mg__mm_read_header(ctx, &reader, &file, &h));
    if (h.rows > MG__IO_MAX_VERTICES || h.cols > MG__IO_MAX_VERTICES)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: a %llu x %llu matrix exceeds the largest graph (%llu "
                 "vertices)",
                 path, (unsigned long long)h.size_line, (unsigned long long)h.rows,
                 (unsigned long long)h.cols, (unsigned long long)MG__IO_MAX_VERTICES);
    char why[300];
    const uint64_t limit = mg__io_vertex_limit(opts, file.size, why, sizeof why);
    const uint64_t n = h.rows > h.cols ? h.rows : h.cols;
    if (n > limit)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: the size line declares %llu vertices, but %s", path,
                 (unsigned long long)h.size_line, (unsigned long long)n, why);

    mg__weight_column wcol = h.field;
    if (opts->ignore_weights && wcol != MG__WCOL_NONE) wcol = MG__WCOL_SKIP;
    mg__text_body body = {
        .kind = MG__TEXT_MATRIX_MARKET, .call = reader.call, .path = path, .body = h.body.p,
        .body_size = (size_t)(h.body.end - h.body.p), .body_line = h.body.line, .one_based = true,
        .row_max = h.rows, .col_max = h.cols, .declared = h.entries, .declared_line = h.size_line,
        .weights = wcol, .allow_negative = opts->allow_negative_weights,
        .progress = opts->progress, .progress_user = opts->progress_user, .split = true,
    };
    MG__TRY(mg__parse_text_body(ctx, &body, coo));
    coo->symmetric = h.symmetry == MG__MM_SYMMETRIC;

cleanup:
    mg__io_unmap(&file);
    if (status != MG_SUCCESS) mg__coo_free(coo);
    return status;
}

/* ---- writer ------------------------------------------------------------------------------------ */

#define OUT_BUFFER (1u << 20)

mg_status mg__write_matrix_market(mg_context ctx, const mg_graph g, const char *path) {
    mg_status status = MG_SUCCESS;
    mg__atomic_file af = {0};
    char *buf = NULL;
    const uint32_t n = g->n;
    const uint64_t *off = g->out.offsets;
    const uint32_t *idx = g->out.indices;
    const int32_t *wi = g->weight_type == MG_WEIGHT_INT32 ? g->out.weights : NULL;
    const float *wf = g->weight_type == MG_WEIGHT_FLOAT ? g->out.weights : NULL;
    const bool symmetric = !g->directed;

    /* An undirected graph stores both directions; the symmetric file keeps the lower triangle
     * (source >= destination), each edge once. */
    uint64_t entries = g->m;
    if (symmetric) {
        entries = 0;
#pragma omp parallel for reduction(+ : entries) schedule(dynamic, 1024)
        for (int64_t u = 0; u < (int64_t)n; u++)
            for (uint64_t e = off[u]; e < off[u + 1]; e++) entries += idx[e] <= (uint32_t)u;
    }

    buf = mg__malloc(OUT_BUFFER);
    if (buf == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_graph_write: out of memory");
    MG__TRY(mg__atomic_open(ctx, path, "mg_graph_write", &af));
    int len = snprintf(buf, OUT_BUFFER,
                       "%%%%MatrixMarket matrix coordinate %s %s\n"
                       "%% written by mgraph %d.%d.%d: entry (i, j) is the edge i -> j (row = "
                       "source), ids 1-based%s\n"
                       "%u %u %llu\n",
                       wi ? "integer" : wf ? "real" : "pattern",
                       symmetric ? "symmetric" : "general", MG_VERSION_MAJOR, MG_VERSION_MINOR,
                       MG_VERSION_PATCH,
                       symmetric ? "; undirected, each edge once (i >= j)" : "", n, n,
                       (unsigned long long)entries);
    char *p = buf + len;
    for (uint32_t u = 0; u < n; u++) {
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            const uint32_t v = idx[e];
            if (symmetric && v > u) continue;
            if ((size_t)(p - buf) > OUT_BUFFER - 128) {
                MG__TRY(mg__atomic_write(ctx, &af, buf, (size_t)(p - buf)));
                p = buf;
            }
            p = mg__io_put_u64(p, (uint64_t)u + 1);
            *p++ = ' ';
            p = mg__io_put_u64(p, (uint64_t)v + 1);
            if (wi) {
                *p++ = ' ';
                int32_t w = wi[e];
                if (w < 0) *p++ = '-';
                p = mg__io_put_u64(p, w < 0 ? (uint64_t)(-(int64_t)w) : (uint64_t)w);
            } else if (wf) {
                /* 9 significant digits give back the same float */
                p += snprintf(p, 40, " %.9g", (double)wf[e]);
            }
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
