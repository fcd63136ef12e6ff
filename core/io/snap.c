/*
 * snap.c — SNAP edge lists (https://snap.stanford.edu/data/): '#' comment lines (and '%', as
 * KONECT writes them), then one "u v [w]" per line, 0-based ids, tab or space separated.
 *
 * n is the largest id + 1. The first edge line fixes the column count (2, or 3 with a weight);
 * every other edge line must match. Weights are int32 while every weight token is an int32
 * integer, else float. The body is parsed in parallel by text_reader.c.
 */
#include "io_internal.h"

mg_status mg__read_snap(mg_context ctx, const char *path, const mg_read_options *opts,
                        mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    mg__mapped_file file = {0};
    memset(coo, 0, sizeof *coo);
    MG__TRY(mg__io_map(ctx, "mg_graph_read", path, &file));

    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le, *body = cur.end;
    uint64_t line = 0, body_line = 0;
    int columns = 2;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *s = ls;
        while (s < le && mg__io_space(*s)) s++;
        if (s == le || *s == '#' || *s == '%') continue;
        MG__TRY(mg__io_check_text(ctx, "mg_graph_read", path, line, ls, le));
        const char *tok[4][2];
        columns = mg__io_tokens(ls, le, tok, 4);
        if (columns != 2 && columns != 3)
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "mg_graph_read: %s:%llu: an edge line needs 2 or 3 columns (source "
                     "destination [weight]), this one has %d",
                     path, (unsigned long long)line, columns);
        body = ls;
        body_line = line;
        break;
    }

    /* n is the largest id + 1, so the limit on n bounds the ids. */
    char why[200];
    const uint64_t limit = mg__io_vertex_limit(opts, file.size, why, sizeof why);
    mg__weight_column wcol = MG__WCOL_NONE;
    if (columns == 3) wcol = opts->ignore_weights ? MG__WCOL_SKIP : MG__WCOL_AUTO;
    mg__text_body b = {
        .kind = MG__TEXT_SNAP, .call = "mg_graph_read", .path = path, .body = body,
        .body_size = (size_t)(file.data + file.size - body), .body_line = body_line,
        .one_based = false, .row_max = limit - 1, .col_max = limit - 1, .limit_why = why,
        .declared = UINT64_MAX, .columns = columns, .columns_line = body_line, .weights = wcol,
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
