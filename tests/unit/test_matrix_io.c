/*
 * test_matrix_io.c — sparse and dense matrices on disk: Matrix Market round trips (double, float,
 * pattern), symmetric and skew-symmetric files, integer files, duplicates and explicit zeros,
 * every malformed case with its file:line message, plain-text dense files, and gzipped graphs,
 * matrices and dense files (made here with the gzip command; corrupt and truncated ones too).
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "temp_dir.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>

#define LIT(s) s, sizeof s - 1

static mg_context ctx;

/* Writes content to tmp(name) and reads it as a matrix with opts. */
static mg_status read_text(const char *name, const char *content, size_t len,
                           const mg_matrix_read_options *opts, mg_matrix *A) {
    return mg_matrix_read(ctx, A, write_file(tmp(name), content, len), opts);
}

/* The read fails with status and a message holding every one of the (non-NULL) parts. */
static void expect_error(const char *name, const char *content, size_t len, mg_status status,
                         const char *part1, const char *part2) {
    mg_matrix A = (mg_matrix)&A;
    mg_status st = read_text(name, content, len, NULL, &A);
    CHECK(st == status);
    CHECK(A == NULL);
    const char *msg = mg_context_error(ctx);
    bool ok = strncmp(msg, "mg_matrix_read: ", 16) == 0 && strstr(msg, name) != NULL &&
              (part1 == NULL || strstr(msg, part1) != NULL) &&
              (part2 == NULL || strstr(msg, part2) != NULL);
    if (!ok || st != status) fprintf(stderr, "  %s: got %s: %s\n", name, mg_status_string(st), msg);
    CHECK(ok);
}

static double value_at(const mg_matrix A, uint64_t e) {
    const void *v;
    mg_matrix_csr(A, NULL, NULL, &v);
    if (mg_matrix_values(A) == MG_VALUES_NONE) return 1;
    return mg_matrix_values(A) == MG_VALUES_FLOAT ? ((const float *)v)[e] : ((const double *)v)[e];
}

/* A and B have the same shape, entries and values (bit for bit as doubles; NaN equals NaN). */
static bool same_matrix(const mg_matrix A, const mg_matrix B) {
    if (mg_matrix_rows(A) != mg_matrix_rows(B) || mg_matrix_cols(A) != mg_matrix_cols(B) ||
        mg_matrix_nnz(A) != mg_matrix_nnz(B) || mg_matrix_values(A) != mg_matrix_values(B))
        return false;
    const uint64_t *ao, *bo;
    const uint32_t *ai, *bi;
    mg_matrix_csr(A, &ao, &ai, NULL);
    mg_matrix_csr(B, &bo, &bi, NULL);
    if (memcmp(ao, bo, (mg_matrix_rows(A) + 1) * sizeof *ao) != 0) return false;
    for (uint64_t e = 0; e < mg_matrix_nnz(A); e++) {
        const double x = value_at(A, e), y = value_at(B, e);
        if (ai[e] != bi[e] || (x != y && !(isnan(x) && isnan(y)))) return false;
    }
    return true;
}

static void test_round_trip(void) {
    /* 3 x 4, row 1 empty, column 2 empty, an explicit zero, values needing all 17 digits */
    const uint32_t r[] = {0, 0, 2, 2, 0};
    const uint32_t c[] = {3, 0, 1, 3, 1};
    const double v[] = {0.1, -2.5e-300, 0.0, 1.0 / 3.0, INFINITY};
    const float vf[] = {0.1f, -2.5e-30f, 0.0f, 1.0f / 3.0f, NAN};
    for (int kind = 0; kind < 3; kind++) {
        const mg_values type = kind == 0 ? MG_VALUES_DOUBLE : kind == 1 ? MG_VALUES_FLOAT : MG_VALUES_NONE;
        mg_matrix A = NULL, B = NULL;
        CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 4, 5, r, c, kind == 1 ? (const void *)vf : v, type));
        CHECK_OK(ctx, mg_matrix_write(ctx, A, tmp("rt.mtx")));
        mg_matrix_read_options opts;
        mg_matrix_read_options_init(&opts);
        CHECK(opts.values == MG_VALUES_DOUBLE && opts.max_dimension == 0);
        opts.values = kind == 1 ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
        CHECK_OK(ctx, mg_matrix_read(ctx, &B, tmp("rt.mtx"), &opts));
        CHECK(same_matrix(A, B));
        CHECK(!mg_matrix_declared_symmetric(B));
        mg_matrix_free(&A);
        mg_matrix_free(&B);
    }
    /* the header it writes */
    FILE *f = fopen(tmp("rt.mtx"), "r");
    char line[128] = "";
    CHECK(f != NULL && fgets(line, sizeof line, f) != NULL);
    CHECK(strcmp(line, "%%MatrixMarket matrix coordinate pattern general\n") == 0);
    if (f) fclose(f);

    /* a write that cannot happen leaves nothing behind */
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 4, 5, r, c, v, MG_VALUES_DOUBLE));
    CHECK(mg_matrix_write(ctx, A, tmpdir) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_write: ") != NULL);
    CHECK(mg_matrix_write(ctx, A, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_matrix_write(ctx, NULL, tmp("x.mtx")) == MG_INVALID_ARGUMENT);
    mg_matrix_free(&A);
}

static void test_symmetry(void) {
    /* symmetric: off-diagonal entries mirrored, the diagonal once; an upper-triangle entry too */
    mg_matrix A = NULL;
    CHECK_OK(ctx, read_text("sym.mtx", LIT("%%MatrixMarket matrix coordinate real symmetric\n"
                                           "% comment\n3 3 3\n1 1 4\n3 1 -1.5\n2 3 2\n"), NULL, &A));
    CHECK(mg_matrix_nnz(A) == 5 && mg_matrix_declared_symmetric(A));
    const uint64_t *o;
    const uint32_t *i;
    const void *v;
    CHECK_OK(ctx, mg_matrix_csr(A, &o, &i, &v));
    const double *d = v;
    CHECK(o[1] == 2 && i[0] == 0 && d[0] == 4 && i[1] == 2 && d[1] == -1.5);
    CHECK(o[2] == 3 && i[2] == 2 && d[2] == 2);
    CHECK(o[3] == 5 && i[3] == 0 && d[3] == -1.5 && i[4] == 1 && d[4] == 2);
    mg_matrix_free(&A);

    /* skew-symmetric: mirrored negated; a zero on the diagonal is allowed (kept) */
    CHECK_OK(ctx, read_text("skew.mtx", LIT("%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                            "2 2 2\n2 1 7\n1 1 0\n"), NULL, &A));
    CHECK(mg_matrix_nnz(A) == 3 && mg_matrix_declared_symmetric(A));
    CHECK_OK(ctx, mg_matrix_csr(A, &o, &i, &v));
    d = v;
    CHECK(i[0] == 0 && d[0] == 0 && i[1] == 1 && d[1] == -7 && i[2] == 0 && d[2] == 7);
    mg_matrix_free(&A);
    expect_error("skewdiag.mtx", LIT("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                     "2 2 2\n2 1 7\n2 2 0.5\n"),
                 MG_PARSE_ERROR, "skewdiag.mtx:4:", "zeros on its diagonal, but entry (2, 2) is '0.5'");
    expect_error("skewpat.mtx", LIT("%%MatrixMarket matrix coordinate pattern skew-symmetric\n"
                                    "2 2 1\n2 1\n"),
                 MG_PARSE_ERROR, "skewpat.mtx:1:", "pattern matrix cannot be skew-symmetric");
    expect_error("symrect.mtx", LIT("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n"),
                 MG_PARSE_ERROR, "symrect.mtx:2:", "a symmetric matrix must be square (2 x 3)");
}

static void test_values(void) {
    /* duplicates summed in file order, explicit zeros kept, integers (beyond int32) as doubles */
    mg_matrix A = NULL;
    CHECK_OK(ctx, read_text("dup.mtx", LIT("%%MatrixMarket matrix coordinate integer general\n"
                                           "2 2 4\n1 2 3\n2 2 0\n1 2 4\n2 1 -9000000000\n"),
                            NULL, &A));
    CHECK(mg_matrix_nnz(A) == 3 && mg_matrix_values(A) == MG_VALUES_DOUBLE);
    CHECK(value_at(A, 0) == 7 && value_at(A, 1) == -9e9 && value_at(A, 2) == 0);
    mg_matrix_free(&A);

    /* float and none as the options ask; a pattern file is a pattern whatever they say */
    mg_matrix_read_options opts;
    mg_matrix_read_options_init(&opts);
    opts.values = MG_VALUES_FLOAT;
    CHECK_OK(ctx, read_text("f.mtx", LIT("%%MatrixMarket matrix coordinate real general\n"
                                         "1 2 2\n1 1 0.1\n1 2 inf\n"), &opts, &A));
    CHECK(mg_matrix_values(A) == MG_VALUES_FLOAT && value_at(A, 0) == (double)0.1f);
    CHECK(isinf(value_at(A, 1)));
    mg_matrix_free(&A);
    CHECK(read_text("big.mtx", LIT("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e300\n"),
                    &opts, &A) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "big.mtx:3: value '1e300' is outside the float range") != NULL);
    opts.values = MG_VALUES_NONE;
    CHECK_OK(ctx, read_text("n.mtx", LIT("%%MatrixMarket matrix coordinate real general\n"
                                         "1 2 2\n1 1 nan\n1 2 1e300\n"), &opts, &A));
    CHECK(mg_matrix_values(A) == MG_VALUES_NONE && mg_matrix_nnz(A) == 2);
    mg_matrix_free(&A);
    opts.values = MG_VALUES_DOUBLE;
    CHECK_OK(ctx, read_text("p.mtx", LIT("%%MatrixMarket matrix coordinate pattern general\n"
                                         "2 2 1\n2 1\n"), &opts, &A));
    CHECK(mg_matrix_values(A) == MG_VALUES_NONE && mg_matrix_nnz(A) == 1);
    mg_matrix_free(&A);
    CHECK_OK(ctx, read_text("nan.mtx", LIT("%%MatrixMarket matrix coordinate real general\n"
                                           "1 1 1\n1 1 -nan\n"), NULL, &A));
    CHECK(isnan(value_at(A, 0)));
    mg_matrix_free(&A);
    opts.values = (mg_values)9;
    CHECK(read_text("p.mtx", LIT("x"), &opts, &A) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "unknown opts->values 9") != NULL);
    CHECK(mg_matrix_read(ctx, NULL, tmp("p.mtx"), NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_matrix_read(ctx, &A, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_matrix_read(ctx, &A, tmp("missing.mtx"), NULL) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_read: cannot open") != NULL);

    /* the dimension limit: default per byte, or the option */
    mg_matrix_read_options_init(&opts);
    opts.max_dimension = 5;
    CHECK(read_text("dim.mtx", LIT("%%MatrixMarket matrix coordinate pattern general\n6 2 0\n"),
                    &opts, &A) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "dim.mtx:2: the size line declares 6 x 2, but the read "
                                        "option max_dimension allows 5") != NULL);
    opts.max_dimension = UINT64_MAX;
    CHECK(read_text("huge.mtx", LIT("%%MatrixMarket matrix coordinate pattern general\n3000000000 1 0\n"),
                    &opts, &A) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "huge.mtx:2: the size line declares 3000000000 x 1, but a "
                                        "matrix has fewer than 2^31 rows and columns") != NULL);
    expect_error("corrupt.mtx", LIT("%%MatrixMarket matrix coordinate pattern general\n99999999 1 0\n"),
                 MG_PARSE_ERROR, "corrupt.mtx:2:", "2^22 + 4 per byte");
}

static void test_malformed(void) {
#define MM "%%MatrixMarket matrix coordinate "
    expect_error("nobanner.mtx", LIT("2 2 1\n1 1 1\n"), MG_PARSE_ERROR, "nobanner.mtx:1:",
                 "missing Matrix Market banner");
    expect_error("array.mtx", LIT("%%MatrixMarket matrix array real general\n2 1\n1\n2\n"),
                 MG_PARSE_ERROR, "array.mtx:1:", "read it with mg_dense_read");
    expect_error("complex.mtx", LIT(MM "complex general\n1 1 1\n1 1 1 0\n"), MG_PARSE_ERROR,
                 "complex.mtx:1:", "complex values are not supported");
    expect_error("herm.mtx", LIT(MM "real hermitian\n1 1 0\n"), MG_PARSE_ERROR, "herm.mtx:1:",
                 "'hermitian' matrices are not supported (general, symmetric or skew-symmetric)");
    expect_error("sym.mtx", LIT(MM "real diagonal\n1 1 0\n"), MG_PARSE_ERROR, "sym.mtx:1:",
                 "unknown symmetry 'diagonal'");
    expect_error("nosize.mtx", LIT(MM "real general\n% only a comment\n"), MG_PARSE_ERROR,
                 "nosize.mtx:3:", "missing size line");
    expect_error("size.mtx", LIT(MM "real general\n2 x 1\n"), MG_PARSE_ERROR, "size.mtx:2:",
                 "columns 'x' is not a non-negative integer");
    expect_error("trunc.mtx", LIT(MM "real general\n2 2 2\n1 1 1\n2 2\n"), MG_PARSE_ERROR,
                 "trunc.mtx:4:", "truncated line: 2 columns where 3 are needed");
    expect_error("extra.mtx", LIT(MM "real general\n2 2 1\n1 1 1 5\n"), MG_PARSE_ERROR,
                 "extra.mtx:3:", "unexpected extra text '5'");
    expect_error("many.mtx", LIT(MM "real general\n2 2 1\n1 1 1\n2 2 2\n"), MG_PARSE_ERROR,
                 "many.mtx:4:", "more entries than the 1 declared on line 2");
    expect_error("few.mtx", LIT(MM "real general\n2 2 3\n1 1 1\n2 2 2\n\n\n"), MG_PARSE_ERROR,
                 "few.mtx:", "the file ends after 2 entries, but line 2 declares 3");
    expect_error("range.mtx", LIT(MM "real general\n2 3 1\n1 4 1\n"), MG_PARSE_ERROR,
                 "range.mtx:3:", "column index 4 is out of range [1, 3]");
    expect_error("zero.mtx", LIT(MM "pattern general\n2 2 1\n0 1\n"), MG_PARSE_ERROR,
                 "zero.mtx:3:", "row index 0: ids in this format start at 1");
    expect_error("nan.mtx", LIT(MM "real general\n2 2 1\n1 1 one\n"), MG_PARSE_ERROR,
                 "nan.mtx:3:", "value 'one' is not a number");
    expect_error("int.mtx", LIT(MM "integer general\n2 2 1\n1 1 1.5\n"), MG_PARSE_ERROR,
                 "int.mtx:3:", "value '1.5' is not an integer");
    expect_error("int64.mtx", LIT(MM "integer general\n2 2 1\n1 1 99999999999999999999\n"),
                 MG_PARSE_ERROR, "int64.mtx:3:", "outside the int64 range");
    expect_error("empty.mtx", LIT(""), MG_PARSE_ERROR, "empty.mtx:1:", "the file is empty");
    /* binary data is named as such, as a text file (a matrix is no graph) */
    expect_error("nul.mtx", LIT(MM "real general\n2 2 1\n1 1 1\0002\n"), MG_PARSE_ERROR,
                 "nul.mtx:3:", "NUL byte at column 6: binary data, not a text file");
#undef MM
}

/* gzip's output for src (by the gzip command), or false where there is no gzip. */
static bool gzip_file(const char *src, const char *dst) {
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s' 2>/dev/null", src, dst);
    return system("command -v gzip >/dev/null 2>&1") == 0 && system(cmd) == 0;
}

static void test_gzip(void) {
    const char text[] = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n3 1 2\n";
    write_file(tmp("m.mtx"), LIT(text));
    if (!gzip_file(tmp("m.mtx"), tmp("m.mtx.gz"))) {
        printf("no gzip command: the gzip reads are not tested\n");
        return;
    }
    mg_matrix A = NULL, B = NULL;
    mg_status st = mg_matrix_read(ctx, &A, tmp("m.mtx.gz"), NULL);
    if (st == MG_UNAVAILABLE) {
        CHECK(strstr(mg_context_error(ctx), "built without zlib") != NULL);
        printf("built without zlib: only its message is tested\n");
        return;
    }
    CHECK_OK(ctx, st);
    CHECK_OK(ctx, mg_matrix_read(ctx, &B, tmp("m.mtx"), NULL));
    CHECK(A != NULL && same_matrix(A, B));
    mg_matrix_free(&A);
    mg_matrix_free(&B);

    /* graphs: the format is told through the .gz, for Matrix Market and SNAP alike */
    write_file(tmp("g.txt"), LIT("# a SNAP file\n0 1\n1 2\n2 0\n"));
    CHECK(gzip_file(tmp("g.txt"), tmp("g.txt.gz")));
    CHECK(gzip_file(tmp("g.txt"), tmp("g.el.gz")));
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_read(ctx, &g, tmp("g.txt.gz"), NULL));
    CHECK(mg_graph_num_vertices(g) == 3 && mg_graph_num_edges(g) == 3);
    mg_graph_free(&g);
    CHECK_OK(ctx, mg_graph_read(ctx, &g, tmp("g.el.gz"), NULL));
    CHECK(mg_graph_num_edges(g) == 3);
    mg_graph_free(&g);
    CHECK_OK(ctx, mg_graph_read(ctx, &g, tmp("m.mtx.gz"), NULL));
    CHECK(mg_graph_num_vertices(g) == 3 && mg_graph_num_edges(g) == 2);
    mg_graph_free(&g);
    /* an error inside a gzipped file names it and the line */
    write_file(tmp("bad.mtx"), LIT("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n"));
    CHECK(gzip_file(tmp("bad.mtx"), tmp("bad.mtx.gz")));
    CHECK(mg_matrix_read(ctx, &A, tmp("bad.mtx.gz"), NULL) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "bad.mtx.gz:3: column index 3 is out of range") != NULL);

    /* not gzip, corrupt, truncated, trailing garbage */
    write_file(tmp("plain.mtx.gz"), LIT(text));
    CHECK(mg_matrix_read(ctx, &A, tmp("plain.mtx.gz"), NULL) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "plain.mtx.gz: not a valid gzip file") != NULL);
    CHECK(mg_graph_read(ctx, &g, tmp("plain.mtx.gz"), NULL) == MG_PARSE_ERROR && g == NULL);
    CHECK(strstr(mg_context_error(ctx), "mg_graph_read: ") != NULL);
    FILE *f = fopen(tmp("m.mtx.gz"), "rb");
    char gz[4096];
    size_t n = f ? fread(gz, 1, sizeof gz, f) : 0;
    if (f) fclose(f);
    CHECK(n > 30);
    write_file(tmp("trunc.mtx.gz"), gz, n - 12);
    CHECK(mg_matrix_read(ctx, &A, tmp("trunc.mtx.gz"), NULL) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "trunc.mtx.gz: truncated gzip file") != NULL);
    char bad[4096];
    memcpy(bad, gz, n);
    for (size_t k = 16; k < n - 8; k++) bad[k] = (char)0xff; /* a reserved block type just past the
                                                               header and its name, "m.mtx" */
    write_file(tmp("corrupt.mtx.gz"), bad, n);
    CHECK(mg_matrix_read(ctx, &A, tmp("corrupt.mtx.gz"), NULL) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "corrupt.mtx.gz: not a valid gzip file (corrupt data") != NULL);
    memcpy(bad, gz, n);
    memcpy(bad + n, "junk", 4);
    write_file(tmp("junk.mtx.gz"), bad, n + 4);
    CHECK(mg_matrix_read(ctx, &A, tmp("junk.mtx.gz"), NULL) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "trailing garbage") != NULL);
    /* two members, as cat a.gz b.gz makes, are one text */
    write_file(tmp("part1"), LIT("%%MatrixMarket matrix coordinate real general\n3 3 2\n"));
    write_file(tmp("part2"), LIT("1 2 0.5\n3 1 2\n"));
    CHECK(gzip_file(tmp("part1"), tmp("p1.gz")) && gzip_file(tmp("part2"), tmp("p2.gz")));
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cat '%s' '%s' > '%s'", tmp("p1.gz"), tmp("p2.gz"), tmp("two.mtx.gz"));
    CHECK(system(cmd) == 0);
    CHECK_OK(ctx, mg_matrix_read(ctx, &A, tmp("two.mtx.gz"), NULL));
    CHECK(mg_matrix_nnz(A) == 2);
    mg_matrix_free(&A);

    /* a dense file too */
    write_file(tmp("x.txt"), LIT("1 2\n3 4\n"));
    CHECK(gzip_file(tmp("x.txt"), tmp("x.txt.gz")));
    mg_dense X = NULL;
    CHECK_OK(ctx, mg_dense_read(ctx, &X, tmp("x.txt.gz"), MG_DOUBLE));
    double v = 0;
    CHECK_OK(ctx, mg_dense_get(ctx, X, 1, 0, &v));
    CHECK(v == 3);
    mg_dense_free(&X);
}

static void expect_dense_error(const char *name, const char *content, size_t len, const char *part1,
                               const char *part2) {
    mg_dense X = (mg_dense)&X;
    mg_status st = mg_dense_read(ctx, &X, write_file(tmp(name), content, len), MG_DOUBLE);
    const char *msg = mg_context_error(ctx);
    bool ok = st == MG_PARSE_ERROR && X == NULL && strncmp(msg, "mg_dense_read: ", 15) == 0 &&
              strstr(msg, part1) != NULL && (part2 == NULL || strstr(msg, part2) != NULL);
    if (!ok) fprintf(stderr, "  %s: got %s: %s\n", name, mg_status_string(st), msg);
    CHECK(ok);
}

static void test_dense_files(void) {
    /* Matrix Market array: column-major on disk */
    mg_dense X = NULL, Y = NULL;
    CHECK_OK(ctx, mg_dense_read(ctx, &X, write_file(tmp("a.mtx"),
                  LIT("%%MatrixMarket matrix array real general\n% c\n2 3\n1\n4\n2\n5\n3\n-6e-1\n")),
                  MG_DOUBLE));
    CHECK(mg_dense_rows(X) == 2 && mg_dense_cols(X) == 3 && mg_dense_type(X) == MG_DOUBLE);
    double d[6];
    CHECK_OK(ctx, mg_dense_extract(ctx, X, d));
    CHECK(d[0] == 1 && d[1] == 2 && d[2] == 3 && d[3] == 4 && d[4] == 5 && d[5] == -0.6);
    /* round trip, double and float */
    CHECK_OK(ctx, mg_dense_set(ctx, X, 0, 1, 1.0 / 3.0));
    CHECK_OK(ctx, mg_dense_write(ctx, X, tmp("w.mtx")));
    CHECK_OK(ctx, mg_dense_read(ctx, &Y, tmp("w.mtx"), MG_DOUBLE));
    double e[6];
    CHECK_OK(ctx, mg_dense_extract(ctx, Y, e));
    CHECK(memcmp(d, e, sizeof d) != 0 && e[1] == 1.0 / 3.0 && e[5] == -0.6);
    mg_dense_free(&Y);
    mg_dense_free(&X);
    CHECK_OK(ctx, mg_dense_create(ctx, &X, 3, 1, MG_FLOAT));
    const float fin[3] = {0.1f, -1e-20f, 3e30f};
    CHECK_OK(ctx, mg_dense_load(ctx, X, fin));
    CHECK_OK(ctx, mg_dense_write(ctx, X, tmp("f.mtx")));
    CHECK_OK(ctx, mg_dense_read(ctx, &Y, tmp("f.mtx"), MG_FLOAT));
    float fout[3];
    CHECK_OK(ctx, mg_dense_extract(ctx, Y, fout));
    CHECK(memcmp(fin, fout, sizeof fin) == 0);
    mg_dense_free(&X);
    mg_dense_free(&Y);
    CHECK(mg_dense_write(ctx, NULL, tmp("f.mtx")) == MG_INVALID_ARGUMENT);
    /* integer arrays */
    CHECK_OK(ctx, mg_dense_read(ctx, &X, write_file(tmp("i.mtx"),
                  LIT("%%MatrixMarket matrix array integer general\n1 2\n7\n-8\n")), MG_FLOAT));
    float fi[2];
    CHECK_OK(ctx, mg_dense_extract(ctx, X, fi));
    CHECK(fi[0] == 7 && fi[1] == -8);
    mg_dense_free(&X);

    /* plain text: spaces, tabs and commas; comments and blank lines */
    CHECK_OK(ctx, mg_dense_read(ctx, &X, write_file(tmp("p.txt"),
                  LIT("# x\n1, 2,\t3\n\n% y\n  4 5 6e1\r\n")), MG_DOUBLE));
    CHECK(mg_dense_rows(X) == 2 && mg_dense_cols(X) == 3);
    CHECK_OK(ctx, mg_dense_extract(ctx, X, d));
    CHECK(d[0] == 1 && d[2] == 3 && d[3] == 4 && d[5] == 60);
    mg_dense_free(&X);

    expect_dense_error("cols.txt", LIT("1 2 3\n# c\n4 5\n"), "cols.txt:3:",
                       "the row has 2 values but the first row (line 1) has 3");
    expect_dense_error("word.txt", LIT("1 2\n3 x\n"), "word.txt:2:", "value 'x' is not a number");
    expect_dense_error("only.txt", LIT("# nothing\n\n"), "only.txt:", "no values");
    expect_dense_error("coo.mtx", LIT("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n"),
                       "coo.mtx:1:", "read it with mg_matrix_read");
    expect_dense_error("sym.mtx", LIT("%%MatrixMarket matrix array real symmetric\n1 1\n1\n"),
                       "sym.mtx:1:", "'symmetric' matrices are not supported (general)");
    expect_dense_error("pat.mtx", LIT("%%MatrixMarket matrix array pattern general\n1 1\n1\n"),
                       "pat.mtx:1:", "unknown field 'pattern' (expected integer or real)");
    expect_dense_error("few.mtx", LIT("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n\n\n"),
                       "few.mtx:7:", "the file ends after 3 values, but line 2 declares 2 x 2");
    expect_dense_error("many.mtx", LIT("%%MatrixMarket matrix array real general\n1 1\n1\n2\n"),
                       "many.mtx:4:", "more values than the 1 x 1 declared on line 2");
    expect_dense_error("two.mtx", LIT("%%MatrixMarket matrix array real general\n2 1\n1 2\n"),
                       "two.mtx:3:", "unexpected '2' after the value");
    expect_dense_error("size.mtx", LIT("%%MatrixMarket matrix array real general\n2\n"),
                       "size.mtx:2:", "two numbers: rows columns (missing columns)");
    expect_dense_error("lines.mtx", LIT("%%MatrixMarket matrix array real general\n100000 100000\n1\n"),
                       "lines.mtx:2:", "can hold at most");
    expect_dense_error("int.mtx", LIT("%%MatrixMarket matrix array integer general\n1 1\n2.5\n"),
                       "int.mtx:3:", "value '2.5' is not an integer");
    /* a NUL byte in an array file's body is binary data, as in plain text (it was "value '1' is
     * not a number", the token cut at the NUL, or "value ''" when the line starts with one) */
    expect_dense_error("nul1.mtx", LIT("%%MatrixMarket matrix array real general\n2 1\n1\n1\0002\n"),
                       "nul1.mtx:4:", "NUL byte at column 2: binary data, not a text file");
    expect_dense_error("nul2.mtx", LIT("%%MatrixMarket matrix array real general\n2 1\n1\n\0002\n"),
                       "nul2.mtx:4:", "NUL byte at column 1");
    expect_dense_error("nul.txt", LIT("1\n1\0002\n"), "nul.txt:2:", "NUL byte at column 2: binary "
                       "data, not a text file");
    mg_dense_read(ctx, &X, write_file(tmp("fl.txt"), LIT("1e300\n")), MG_FLOAT);
    CHECK(X == NULL && strstr(mg_context_error(ctx), "fl.txt:1: value '1e300' is outside the float range") != NULL);
    CHECK(mg_dense_read(ctx, &X, tmp("p.txt"), MG_INT32) == MG_INVALID_ARGUMENT);
    CHECK(mg_dense_read(ctx, &X, tmp("nothere.txt"), MG_FLOAT) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "mg_dense_read: cannot open") != NULL);
}

int main(void) {
    if (temp_dir_make("matrix_io") != 0) return 2;
    CHECK(mg_context_create(&ctx) == MG_SUCCESS);
    test_round_trip();
    test_symmetry();
    test_values();
    test_malformed();
    test_gzip();
    test_dense_files();
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
