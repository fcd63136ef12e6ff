/*
 * dimacs.c — DIMACS shortest-path graphs (.gr, 9th DIMACS Implementation Challenge):
 * 'c' comment lines, one problem line "p sp <vertices> <arcs>", then "a <tail> <head> <weight>"
 * arcs with 1-based ids and integer weights. The body is parsed in parallel by text_reader.c.
 */
#include "io_internal.h"

mg_status mg__read_dimacs(mg_context ctx, const char *path, const mg_read_options *opts,
                          mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    mg__mapped_file file = {0};
    memset(coo, 0, sizeof *coo);
    MG__TRY(mg__io_map(ctx, "mg_graph_read", path, &file));

    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    bool found = false;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *s = ls;
        while (s < le && mg__io_space(*s)) s++;
        if (s == le || *s == 'c') continue;
        found = true;
        break;
    }
    if (!found)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: missing problem line 'p sp <vertices> <arcs>'", path,
                 (unsigned long long)line + 1);
    MG__TRY(mg__io_check_text(ctx, "mg_graph_read", path, line, ls, le));
    const char *tok[5][2];
    int ntok = mg__io_tokens(ls, le, tok, 5);
    if (!mg__io_token_is(tok[0][0], tok[0][1], "p")) {
        if (mg__io_token_is(tok[0][0], tok[0][1], "a"))
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "mg_graph_read: %s:%llu: an arc before the problem line 'p sp <vertices> "
                     "<arcs>'",
                     path, (unsigned long long)line);
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: expected the problem line 'p sp <vertices> <arcs>', "
                 "found '%.*s'",
                 path, (unsigned long long)line, mg__io_token_len(tok[0][0], tok[0][1]),
                 tok[0][0]);
    }
    if (ntok < 2 || !mg__io_token_is(tok[1][0], tok[1][1], "sp"))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: problem type '%.*s' is not supported (only 'sp')", path,
                 (unsigned long long)line,
                 ntok < 2 ? 0 : mg__io_token_len(tok[1][0], tok[1][1]), ntok < 2 ? "" : tok[1][0]);
    if (ntok != 4)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: the problem line needs exactly 'p sp <vertices> "
                 "<arcs>' (found %d words)",
                 path, (unsigned long long)line, ntok);
    uint64_t n = 0, m = 0;
    const char *q = tok[2][0];
    int r1 = mg__io_parse_u64(&q, le, &n);
    int r2 = r1 == MG__TOK_OK ? mg__io_parse_u64(&q, le, &m) : MG__TOK_OK;
    if (r1 != MG__TOK_OK || r2 != MG__TOK_OK) {
        int bad = r1 != MG__TOK_OK ? 2 : 3;
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: problem line: %s '%.*s' is not a valid count", path,
                 (unsigned long long)line, bad == 2 ? "vertex count" : "arc count",
                 mg__io_token_len(tok[bad][0], tok[bad][1]), tok[bad][0]);
    }
    if (n > MG__IO_MAX_VERTICES)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: %llu vertices exceed the largest graph (%llu)", path,
                 (unsigned long long)line, (unsigned long long)n,
                 (unsigned long long)MG__IO_MAX_VERTICES);
    char why[200];
    if (n > mg__io_vertex_limit(opts, file.size, why, sizeof why))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: the problem line declares %llu vertices, but %s", path,
                 (unsigned long long)line, (unsigned long long)n, why);
    const size_t body_size = (size_t)(cur.end - cur.p);
    const uint64_t most = mg__io_most_lines(body_size);
    if (m > most)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s:%llu: the problem line declares %llu arcs, but the rest of "
                 "the file (%llu bytes) can hold at most %llu lines",
                 path, (unsigned long long)line, (unsigned long long)m,
                 (unsigned long long)body_size, (unsigned long long)most);

    mg__text_body b = {
        .kind = MG__TEXT_DIMACS, .call = "mg_graph_read", .path = path, .body = cur.p,
        .body_size = body_size,
        .body_line = cur.line, .one_based = true, .row_max = n, .col_max = n, .declared = m,
        .declared_line = line, .weights = opts->ignore_weights ? MG__WCOL_SKIP : MG__WCOL_INT,
        .allow_negative = opts->allow_negative_weights, .progress = opts->progress,
        .progress_user = opts->progress_user, .split = true,
    };
    MG__TRY(mg__parse_text_body(ctx, &b, coo));
    coo->symmetric = false;

cleanup:
    mg__io_unmap(&file);
    if (status != MG_SUCCESS) mg__coo_free(coo);
    return status;
}
