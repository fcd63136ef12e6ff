/*
 * bcsr_io.c — our BCSR text format (docs/CHAIN.md) and a chain's size file: mg_bcsr_read,
 * mg_bcsr_write, mg_bcsr_read_size. The seed report (001) names its files but not their layout;
 * ours is one block per line so that every error names the line it is on. Reading goes through
 * core/io's mapped files and token parsers; writing through its whole-or-nothing file.
 */
#include "sparse/bcsr_internal.h"
#include "io/io_internal.h"

#include <math.h>

static bool skipped_line(const char *p, const char *end) {
    while (p < end && mg__io_space(*p)) p++;
    return p == end || *p == '%' || *p == '#';
}

/* The next line that is not a comment or blank; false at end of file. */
static bool next_content_line(mg__line_cursor *cur, const char **ls, const char **le,
                              uint64_t *line) {
    while (mg__next_line(cur, ls, le, line))
        if (!skipped_line(*ls, *le)) return true;
    return false;
}

static const char *token_problem(int r) {
    return r == MG__TOK_NEGATIVE   ? "is negative"
           : r == MG__TOK_OVERFLOW ? "does not fit 64 bits"
                                   : "is not an unsigned integer";
}

/* Reads the token at *p as an unsigned integer below `limit`; `what` names it in the message. */
static mg_status parse_count(mg_context ctx, const char *call, const char *path, uint64_t line,
                             const char **p, const char *end, uint64_t limit, const char *what,
                             uint64_t *value) {
    const char *s = *p;
    while (s < end && mg__io_space(*s)) s++;
    const int r = mg__io_parse_u64(p, end, value);
    if (r == MG__TOK_MISSING)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, line, "%s is missing", what);
    const char *e = s;
    while (e < end && !mg__io_space(*e)) e++;
    if (r != MG__TOK_OK)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, line, "%s '%.*s' %s", what,
                                mg__io_token_len(s, e), s, token_problem(r));
    if (*value >= limit)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, line,
                                "%s %llu is out of range (at most %llu)", what,
                                (unsigned long long)*value, (unsigned long long)(limit - 1));
    return MG_SUCCESS;
}

/* Parses one value of type t into out; `index` (0-based in the block) names it. */
static mg_status parse_value(mg_context ctx, const char *path, uint64_t line, const char **p,
                             const char *end, mg_bcsr_values t, uint64_t index, uint32_t k,
                             void *out) {
    const char *s = *p;
    while (s < end && mg__io_space(*s)) s++;
    const char *e = s;
    while (e < end && !mg__io_space(*e)) e++;
    if (s == end)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, "mg_bcsr_read", path, line,
                                "the block has %llu values but k = %u needs %u (k * k)",
                                (unsigned long long)index, k, k * k);
    int r;
    if (t == MG_BCSR_UINT64) {
        r = mg__io_parse_u64(p, end, (uint64_t *)out);
        if (r != MG__TOK_OK)
            return mg__io_fail_line(ctx, MG_PARSE_ERROR, "mg_bcsr_read", path, line,
                                    "value %llu '%.*s' %s (uint64 values)",
                                    (unsigned long long)index + 1, mg__io_token_len(s, e), s,
                                    token_problem(r));
        return MG_SUCCESS;
    }
    double d = 0;
    r = mg__io_parse_real(p, end, &d);
    if (r != MG__TOK_OK || *p != e)
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, "mg_bcsr_read", path, line,
                                "value %llu '%.*s' is not a number", (unsigned long long)index + 1,
                                mg__io_token_len(s, e), s);
    if (t == MG_BCSR_DOUBLE) {
        *(double *)out = d;
        return MG_SUCCESS;
    }
    const float f = (float)d;
    if (isfinite(d) && !isfinite(f))
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, "mg_bcsr_read", path, line,
                                "value %llu '%.*s' is outside the float range",
                                (unsigned long long)index + 1, mg__io_token_len(s, e), s);
    *(float *)out = f;
    return MG_SUCCESS;
}

/* A block as read: where it goes and which line it came from. */
typedef struct {
    uint32_t brow, bcol;
    uint64_t line;
    uint64_t at; /* its values' position in the read order */
} read_block;

static int compare_blocks(const void *a, const void *b) {
    const read_block *x = a, *y = b;
    if (x->brow != y->brow) return (x->brow > y->brow) - (x->brow < y->brow);
    if (x->bcol != y->bcol) return (x->bcol > y->bcol) - (x->bcol < y->bcol);
    return (x->line > y->line) - (x->line < y->line);
}

static bool value_zero(const void *v, mg_bcsr_values t, uint64_t i) {
    if (t == MG_BCSR_FLOAT) return ((const float *)v)[i] == 0;
    if (t == MG_BCSR_DOUBLE) return ((const double *)v)[i] == 0;
    return ((const uint64_t *)v)[i] == 0;
}

mg_status mg_bcsr_read(mg_context ctx, mg_bcsr *B, const char *path, uint32_t k, mg_bcsr_values type) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__mapped_file file = {0};
    read_block *blocks = NULL;
    void *vals = NULL;
    mg_bcsr b = NULL;
    if (B == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_read: B is NULL");
    *B = NULL;
    if (path == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_read: path is NULL");
    if (k < MG_BCSR_MIN_BLOCK || k > MG_BCSR_MAX_BLOCK)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_read: k = %u is not a block size in %d..%d", k,
                 MG_BCSR_MIN_BLOCK, MG_BCSR_MAX_BLOCK);
    if ((unsigned)type > (unsigned)MG_BCSR_DOUBLE)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_read: type = %d is not an mg_bcsr_values",
                 (int)type);
    MG__TRY(mg__io_map(ctx, "mg_bcsr_read", path, &file));
    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    if (!next_content_line(&cur, &ls, &le, &line))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: no size line \"rows cols nblocks\" "
                 "(only comments and blank lines)", path, (unsigned long long)cur.line);
    MG__TRY(mg__io_check_text(ctx, "mg_bcsr_read", path, line, ls, le));
    uint64_t rows, cols, nblocks;
    const char *p = ls;
    MG__TRY(parse_count(ctx, "mg_bcsr_read", path, line, &p, le, (uint64_t)1 << 31, "rows", &rows));
    MG__TRY(parse_count(ctx, "mg_bcsr_read", path, line, &p, le, (uint64_t)1 << 31, "cols", &cols));
    const uint64_t brows = (rows + k - 1) / k, bcols = (cols + k - 1) / k;
    MG__TRY(parse_count(ctx, "mg_bcsr_read", path, line, &p, le, UINT64_MAX, "nblocks", &nblocks));
    if (!skipped_line(p, le))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: the size line has more than "
                 "\"rows cols nblocks\"", path, (unsigned long long)line);
    if (nblocks > brows * bcols || nblocks > mg__io_most_lines(file.size))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: %llu blocks cannot be: %s", path,
                 (unsigned long long)line, (unsigned long long)nblocks,
                 nblocks > brows * bcols ? "more than the matrix has in blocks of that side"
                                         : "more than the file has lines");
    const uint64_t kk = (uint64_t)k * k;
    const size_t vsize = mg__bcsr_value_size(type);
    blocks = mg__malloc(mg__mul_size((size_t)nblocks, sizeof *blocks));
    vals = mg__malloc(mg__mul_size(mg__mul_size((size_t)nblocks, (size_t)kk), vsize));
    if (blocks == NULL || vals == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_bcsr_read: %s: out of memory for %llu blocks", path,
                 (unsigned long long)nblocks);
    for (uint64_t n = 0; n < nblocks; n++) {
        if (!next_content_line(&cur, &ls, &le, &line))
            MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: the file ends after %llu of the "
                     "%llu blocks its size line declares", path, (unsigned long long)cur.line,
                     (unsigned long long)n, (unsigned long long)nblocks);
        uint64_t br, bc;
        p = ls;
        MG__TRY(parse_count(ctx, "mg_bcsr_read", path, line, &p, le, brows, "block row", &br));
        MG__TRY(parse_count(ctx, "mg_bcsr_read", path, line, &p, le, bcols, "block column", &bc));
        char *v = (char *)vals + n * kk * vsize;
        for (uint64_t t = 0; t < kk; t++) {
            MG__TRY(parse_value(ctx, path, line, &p, le, type, t, k, v + t * vsize));
            if ((br * k + t / k >= rows || bc * k + t % k >= cols) && !value_zero(v, type, t))
                MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: value %llu is not zero but "
                         "lies at (%llu, %llu), outside the %llu x %llu matrix", path,
                         (unsigned long long)line, (unsigned long long)t + 1,
                         (unsigned long long)(br * k + t / k), (unsigned long long)(bc * k + t % k),
                         (unsigned long long)rows, (unsigned long long)cols);
        }
        if (!skipped_line(p, le))
            MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: the block has more than the %llu "
                     "values k = %u gives (block-row block-col, then k * k values)", path,
                     (unsigned long long)line, (unsigned long long)kk, k);
        blocks[n] = (read_block){(uint32_t)br, (uint32_t)bc, line, n};
    }
    if (next_content_line(&cur, &ls, &le, &line))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: more blocks than the %llu the size "
                 "line declares", path, (unsigned long long)line, (unsigned long long)nblocks);
    qsort(blocks, (size_t)nblocks, sizeof *blocks, compare_blocks);
    for (uint64_t n = 1; n < nblocks; n++)
        if (blocks[n].brow == blocks[n - 1].brow && blocks[n].bcol == blocks[n - 1].bcol)
            MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read: %s:%llu: block (%u, %u) again (first on "
                     "line %llu)", path, (unsigned long long)blocks[n].line, blocks[n].brow,
                     blocks[n].bcol, (unsigned long long)blocks[n - 1].line);
    MG__TRY(mg__bcsr_alloc(ctx, "mg_bcsr_read", (uint32_t)rows, (uint32_t)cols, k, type, nblocks, &b));
    for (uint64_t n = 0; n < nblocks; n++) {
        b->offsets[blocks[n].brow + 1]++;
        b->bcols[n] = blocks[n].bcol;
        memcpy((char *)b->values + n * kk * vsize, (char *)vals + blocks[n].at * kk * vsize,
               (size_t)kk * vsize);
    }
    for (uint32_t i = 0; i < b->block_rows; i++) b->offsets[i + 1] += b->offsets[i];
    *B = b;
    b = NULL;
cleanup:
    mg_bcsr_free(&b);
    mg__free(blocks);
    mg__free(vals);
    mg__io_unmap(&file);
    return status;
}

mg_status mg_bcsr_read_size(mg_context ctx, const char *path, uint32_t *count, uint32_t *k) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__mapped_file file = {0};
    if (path == NULL || count == NULL || k == NULL)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_read_size: %s is NULL",
                 path == NULL ? "path" : count == NULL ? "count" : "k");
    MG__TRY(mg__io_map(ctx, "mg_bcsr_read_size", path, &file));
    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0, n, side;
    if (!next_content_line(&cur, &ls, &le, &line))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read_size: %s:%llu: no \"N k\" line (only comments "
                 "and blank lines)", path, (unsigned long long)cur.line);
    MG__TRY(mg__io_check_text(ctx, "mg_bcsr_read_size", path, line, ls, le));
    const char *p = ls;
    MG__TRY(parse_count(ctx, "mg_bcsr_read_size", path, line, &p, le, (uint64_t)1 << 31,
                        "N (the number of matrices)", &n));
    MG__TRY(parse_count(ctx, "mg_bcsr_read_size", path, line, &p, le, MG_BCSR_MAX_BLOCK + 1,
                        "k (the block side)", &side));
    if (n == 0 || side < MG_BCSR_MIN_BLOCK)
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read_size: %s:%llu: %s", path,
                 (unsigned long long)line,
                 n == 0 ? "N is 0: a chain needs at least one matrix"
                        : "k must be at least 2 (blocks of side 2..32)");
    if (!skipped_line(p, le) || next_content_line(&cur, &ls, &le, &line))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_bcsr_read_size: %s:%llu: more than the one line \"N k\"",
                 path, (unsigned long long)line);
    *count = (uint32_t)n;
    *k = (uint32_t)side;
cleanup:
    mg__io_unmap(&file);
    return status;
}

static bool ends_with(const char *s, const char *tail) {
    const size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* One value in the file's notation: integers exactly, doubles in 17 digits and floats in 9 (enough
 * to read back the same bits). */
static int put_value(FILE *f, const mg_bcsr B, uint64_t t) {
    if (B->type == MG_BCSR_UINT64)
        return fprintf(f, "%llu", (unsigned long long)((const uint64_t *)B->values)[t]);
    if (B->type == MG_BCSR_DOUBLE) return fprintf(f, "%.17g", ((const double *)B->values)[t]);
    return fprintf(f, "%.9g", (double)((const float *)B->values)[t]);
}

mg_status mg_bcsr_write(mg_context ctx, const mg_bcsr B, const char *path) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_bcsr(ctx, B, "mg_bcsr_write: B")) != MG_SUCCESS) return status;
    if (path == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_bcsr_write: path is NULL");
    mg__atomic_file af = {0};
    MG__TRY(mg__atomic_open(ctx, path, "mg_bcsr_write", &af));
    const uint32_t k = B->k;
    const uint64_t kk = (uint64_t)k * k;
    bool ok = true;
    if (ends_with(path, ".mtx")) {
        uint64_t nnz = 0;
        for (uint64_t t = 0; t < B->nblocks * kk; t++) nnz += !value_zero(B->values, B->type, t);
        ok = fprintf(af.file, "%%%%MatrixMarket matrix coordinate %s general\n%u %u %llu\n",
                     B->type == MG_BCSR_UINT64 ? "integer" : "real", B->rows, B->cols,
                     (unsigned long long)nnz) > 0;
        /* row by row, columns ascending (a block row's blocks are sorted) */
        for (uint32_t i = 0; ok && i < B->block_rows; i++)
            for (uint32_t r = 0; ok && r < k; r++)
                for (uint64_t p = B->offsets[i]; ok && p < B->offsets[i + 1]; p++)
                    for (uint32_t c = 0; ok && c < k; c++) {
                        const uint64_t t = p * kk + (uint64_t)r * k + c;
                        if (value_zero(B->values, B->type, t)) continue;
                        ok = fprintf(af.file, "%llu %llu ", (unsigned long long)i * k + r + 1,
                                     (unsigned long long)B->bcols[p] * k + c + 1) > 0 &&
                             put_value(af.file, B, t) > 0 && fputc('\n', af.file) != EOF;
                    }
    } else {
        ok = fprintf(af.file, "%% mgraph BCSR: blocks of side %u, %s values (docs/CHAIN.md)\n"
                     "%u %u %llu\n", k, B->type == MG_BCSR_UINT64 ? "uint64"
                                        : B->type == MG_BCSR_FLOAT ? "float" : "double",
                     B->rows, B->cols, (unsigned long long)B->nblocks) > 0;
        for (uint32_t i = 0; ok && i < B->block_rows; i++)
            for (uint64_t p = B->offsets[i]; ok && p < B->offsets[i + 1]; p++) {
                ok = fprintf(af.file, "%u %u", i, B->bcols[p]) > 0;
                for (uint64_t t = 0; ok && t < kk; t++)
                    ok = fputc(' ', af.file) != EOF && put_value(af.file, B, p * kk + t) > 0;
                ok = ok && fputc('\n', af.file) != EOF;
            }
    }
    if (!ok) MG__FAIL(ctx, MG_IO_ERROR, "mg_bcsr_write: error writing %s", path);
    MG__TRY(mg__atomic_commit(ctx, &af));
cleanup:
    mg__atomic_abort(&af);
    return status;
}
