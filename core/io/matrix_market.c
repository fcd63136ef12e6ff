/*
 * matrix_market.c — Matrix Market coordinate files (https://math.nist.gov/MatrixMarket/formats.html):
 * the reader's header (banner, comments, size line) and the writer.
 *
 * Convention: entry (i, j) is the edge i -> j (the row is the source), 1-based. A symmetric file
 * stores each undirected edge once; the graph builder adds the reverse direction. The body is
 * parsed in parallel by text_reader.c.
 */
#include "io_internal.h"

#include <math.h>

static mg_status size_token_error(mg_context ctx, const char *path, uint64_t line, int r,
                                  const char *what, const char *tok[2]) {
    if (r == MG__TOK_MISSING)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, path, line,
                                "the size line needs three numbers: rows columns entries "
                                "(missing %s)", what);
    const char *why = r == MG__TOK_NEGATIVE ? "is negative"
                      : r == MG__TOK_OVERFLOW ? "is too large"
                                              : "is not a non-negative integer";
    return mg__io_fail_line(ctx, MG_PARSE_ERROR, path, line, "size line: %s '%.*s' %s", what,
                            mg__io_token_len(tok[0], tok[1]), tok[0], why);
}

mg_status mg__read_matrix_market(mg_context ctx, const char *path, const mg_read_options *opts,
                                 mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    mg__mapped_file file = {0};
    memset(coo, 0, sizeof *coo);
    MG__TRY(mg__io_map(ctx, path, &file));

    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    mg__next_line(&cur, &ls, &le, &line); /* a mapped file is never empty */
    MG__TRY(mg__io_check_text(ctx, path, line, ls, le));

    /* Banner: %%MatrixMarket matrix coordinate <field> <symmetry> */
    const char *tok[6][2];
    int ntok = mg__io_tokens(ls, le, tok, 6);
    if (ntok == 0 || !mg__io_token_is(tok[0][0], tok[0][1], "%%MatrixMarket"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: missing Matrix Market banner: the first line must be "
                 "'%%%%MatrixMarket matrix coordinate <pattern|integer|real> "
                 "<general|symmetric>'",
                 path, (unsigned long long)line);
    if (ntok < 5)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: incomplete banner: after %%%%MatrixMarket it needs "
                 "'matrix coordinate <field> <symmetry>' (found %d word%s)",
                 path, (unsigned long long)line, ntok - 1, ntok == 2 ? "" : "s");
    if (ntok > 5)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: unexpected '%.*s' after the banner's symmetry keyword",
                 path, (unsigned long long)line, mg__io_token_len(tok[5][0], tok[5][1]),
                 tok[5][0]);
#define TOK(i) mg__io_token_len(tok[i][0], tok[i][1]), tok[i][0]
    if (!mg__io_token_is(tok[1][0], tok[1][1], "matrix"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: object '%.*s' is not supported (only 'matrix')", path,
                 (unsigned long long)line, TOK(1));
    if (mg__io_token_is(tok[2][0], tok[2][1], "array"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: dense 'array' files are not supported (only "
                 "'coordinate')",
                 path, (unsigned long long)line);
    if (!mg__io_token_is(tok[2][0], tok[2][1], "coordinate"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: unknown format '%.*s' (expected 'coordinate')", path,
                 (unsigned long long)line, TOK(2));

    mg__weight_column wcol;
    if (mg__io_token_is(tok[3][0], tok[3][1], "pattern")) {
        wcol = MG__WCOL_NONE;
    } else if (mg__io_token_is(tok[3][0], tok[3][1], "integer")) {
        wcol = MG__WCOL_INT;   /* int32 weights */
    } else if (mg__io_token_is(tok[3][0], tok[3][1], "real")) {
        wcol = MG__WCOL_REAL;  /* float weights */
    } else if (mg__io_token_is(tok[3][0], tok[3][1], "complex")) {
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: complex values are not supported (pattern, integer or "
                 "real)",
                 path, (unsigned long long)line);
    } else {
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: unknown field '%.*s' (expected pattern, integer or "
                 "real)",
                 path, (unsigned long long)line, TOK(3));
    }
    bool symmetric;
    if (mg__io_token_is(tok[4][0], tok[4][1], "general"))
        symmetric = false;
    else if (mg__io_token_is(tok[4][0], tok[4][1], "symmetric"))
        symmetric = true;
    else if (mg__io_token_is(tok[4][0], tok[4][1], "skew-symmetric") ||
             mg__io_token_is(tok[4][0], tok[4][1], "hermitian"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: '%.*s' matrices are not supported (general or "
                 "symmetric)",
                 path, (unsigned long long)line, TOK(4));
    else
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: unknown symmetry '%.*s' (expected general or "
                 "symmetric)",
                 path, (unsigned long long)line, TOK(4));
#undef TOK

    /* Comments and blank lines, then the size line. */
    bool found = false;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *s = ls;
        while (s < le && mg__io_space(*s)) s++;
        if (s < le && *s != '%') {
            found = true;
            break;
        }
    }
    if (!found)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: missing size line (rows columns entries) after the "
                 "banner",
                 path, (unsigned long long)line + 1);
    const uint64_t size_line = line;
    MG__TRY(mg__io_check_text(ctx, path, line, ls, le));
    ntok = mg__io_tokens(ls, le, tok, 4);
    static const char *const size_names[3] = {"rows", "columns", "entries"};
    uint64_t sizes[3] = {0, 0, 0};
    const char *q = ls;
    for (int i = 0; i < 3; i++) {
        int r = mg__io_parse_u64(&q, le, &sizes[i]);
        if (r != MG__TOK_OK) {
            const char *t[2] = {i < ntok ? tok[i][0] : le, i < ntok ? tok[i][1] : le};
            status = size_token_error(ctx, path, size_line, r, size_names[i], t);
            goto cleanup;
        }
    }
    if (ntok > 3)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: unexpected '%.*s' after the size line's three numbers",
                 path, (unsigned long long)size_line, mg__io_token_len(tok[3][0], tok[3][1]),
                 tok[3][0]);
    const uint64_t rows = sizes[0], cols = sizes[1], nnz = sizes[2];
    if (rows > MG__IO_MAX_VERTICES || cols > MG__IO_MAX_VERTICES)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: a %llu x %llu matrix exceeds the largest graph (%llu "
                 "vertices)",
                 path, (unsigned long long)size_line, (unsigned long long)rows,
                 (unsigned long long)cols, (unsigned long long)MG__IO_MAX_VERTICES);
    char why[200];
    const uint64_t limit = mg__io_vertex_limit(opts, file.size, why, sizeof why);
    const uint64_t n = rows > cols ? rows : cols;
    if (n > limit)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: the size line declares %llu vertices, but %s", path,
                 (unsigned long long)size_line, (unsigned long long)n, why);
    if (symmetric && rows != cols)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: a symmetric matrix must be square (%llu x %llu)", path,
                 (unsigned long long)size_line, (unsigned long long)rows,
                 (unsigned long long)cols);
    const size_t body_size = (size_t)(cur.end - cur.p);
    const uint64_t most = mg__io_most_lines(body_size);
    if (nnz > most)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: the size line declares %llu entries, but the rest of "
                 "the file (%llu bytes) can hold at most %llu lines",
                 path, (unsigned long long)size_line, (unsigned long long)nnz,
                 (unsigned long long)body_size, (unsigned long long)most);

    if (opts->ignore_weights && wcol != MG__WCOL_NONE) wcol = MG__WCOL_SKIP;
    mg__text_body body = {
        .kind = MG__TEXT_MATRIX_MARKET, .path = path, .body = cur.p, .body_size = body_size,
        .body_line = cur.line, .one_based = true, .row_max = rows, .col_max = cols,
        .declared = nnz, .declared_line = size_line, .weights = wcol,
        .allow_negative = opts->allow_negative_weights, .progress = opts->progress,
        .progress_user = opts->progress_user,
    };
    MG__TRY(mg__parse_text_body(ctx, &body, coo));
    coo->symmetric = symmetric;

cleanup:
    mg__io_unmap(&file);
    if (status != MG_SUCCESS) mg__coo_free(coo);
    return status;
}

/* ---- writer ------------------------------------------------------------------------------------ */

#define OUT_BUFFER (1u << 20)

static char *put_u64(char *p, uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

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
            p = put_u64(p, (uint64_t)u + 1);
            *p++ = ' ';
            p = put_u64(p, (uint64_t)v + 1);
            if (wi) {
                *p++ = ' ';
                int32_t w = wi[e];
                if (w < 0) *p++ = '-';
                p = put_u64(p, w < 0 ? (uint64_t)(-(int64_t)w) : (uint64_t)w);
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
