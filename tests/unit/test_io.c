/*
 * test_io.c — graph files: the small files in tests/data load with the right vertices, edges and
 * weights; Matrix Market and binary round trips give identical CSR/CSC; every kind of bad input
 * fails with the right status and a message naming the file and the line; corrupted binary files
 * fail cleanly; writers leave nothing behind when they fail; the parallel parser gives the same
 * graph and the same first error for any thread count; failed allocations fail cleanly.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "temp_dir.h"
#include "mg_internal.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mg_context ctx;
static const char *datadir;

static const char *data(const char *name) {
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", datadir, name);
    return buf[k];
}

static mg_graph load(const char *path, const mg_read_options *opts) {
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_read(ctx, &g, path, opts));
    return g;
}

/* ---- expected edges ---------------------------------------------------------------------------- */

typedef struct {
    uint32_t u, v;
    double w;
} edge;

/* The CSR of g holds exactly these edges (sorted by u, then v) with these weights. */
static int csr_is(const mg_graph g, const edge *e, size_t count) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    if (mg_graph_csr(g, &off, &idx, &w) != MG_SUCCESS) return 0;
    if (mg_graph_num_edges(g) != count) {
        fprintf(stderr, "  edges: got %llu, want %zu\n",
                (unsigned long long)mg_graph_num_edges(g), count);
        return 0;
    }
    size_t k = 0;
    for (uint32_t u = 0; u < mg_graph_num_vertices(g); u++) {
        for (uint64_t i = off[u]; i < off[u + 1]; i++, k++) {
            if (k >= count || e[k].u != u || e[k].v != idx[i]) {
                fprintf(stderr, "  edge %zu: got %u -> %u\n", k, u, idx[i]);
                return 0;
            }
            double got = 0;
            if (mg_graph_weight_type(g) == MG_WEIGHT_INT32) got = ((const int32_t *)w)[i];
            if (mg_graph_weight_type(g) == MG_WEIGHT_FLOAT) got = ((const float *)w)[i];
            if (mg_graph_weight_type(g) != MG_WEIGHT_NONE && got != e[k].w) {
                fprintf(stderr, "  edge %u -> %u: weight %.9g, want %.9g\n", u, idx[i], got,
                        e[k].w);
                return 0;
            }
        }
    }
    return k == count;
}

/* The 6-vertex test graph: tests/data/small_*.{mtx,txt,el,gr}. */
static const edge small_int[8] = {{0, 1, 3}, {0, 2, 1}, {1, 3, 4}, {2, 3, 1},
                                  {2, 5, 6}, {3, 4, 5}, {4, 5, 9}, {5, 0, 2}};

static void test_good_files(void) {
    mg_graph g;

    g = load(data("small_general.mtx"), NULL);
    if (g) {
        CHECK(mg_graph_num_vertices(g) == 6);
        CHECK(mg_graph_is_directed(g));
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_NONE);
        CHECK(mg_graph_index_base(g) == 1);
        CHECK(csr_is(g, small_int, 8));
        /* the CSC holds the same edges by destination */
        const uint64_t *off;
        const uint32_t *idx;
        CHECK_OK(ctx, mg_graph_csc(g, &off, &idx, NULL));
        CHECK(off[0] == 0 && off[1] == 1 && idx[0] == 5);       /* 5 -> 0 */
        CHECK(off[3] - off[2] == 1 && idx[off[2]] == 0);        /* 0 -> 2 */
        CHECK(off[4] - off[3] == 2);                            /* 1 -> 3, 2 -> 3 */
        mg_graph_free(&g);
    }

    g = load(data("small_int.mtx"), NULL);
    if (g) {
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_INT32);
        CHECK(csr_is(g, small_int, 8));
        mg_graph_free(&g);
    }

    g = load(data("small_real.mtx"), NULL);
    if (g) {
        static const edge want[8] = {{0, 1, 0.5f},  {0, 2, 1.25f}, {1, 3, 4.0f},
                                     {2, 3, 0.1f},  {2, 5, 6.0f},  {3, 4, 25.0f},
                                     {4, 5, 0.75f}, {5, 0, 1000000.125f}};
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_FLOAT);
        CHECK(csr_is(g, want, 8));
        mg_graph_free(&g);
    }

    g = load(data("small_sym.mtx"), NULL);
    if (g) {
        static const edge want[14] = {{0, 1, 1}, {0, 3, 7}, {0, 5, 6}, {1, 0, 1}, {1, 2, 2},
                                      {2, 1, 2}, {2, 3, 3}, {3, 0, 7}, {3, 2, 3}, {3, 4, 4},
                                      {4, 3, 4}, {4, 5, 5}, {5, 0, 6}, {5, 4, 5}};
        CHECK(!mg_graph_is_directed(g));
        CHECK(mg_graph_num_vertices(g) == 6);
        CHECK(csr_is(g, want, 14));
        mg_graph_free(&g);
    }

    mg_read_options opts;
    mg_read_options_init(&opts);
    opts.undirected = 0; /* a symmetric file read as directed keeps only the stored triangle */
    g = load(data("small_sym.mtx"), &opts);
    if (g) {
        CHECK(mg_graph_is_directed(g));
        CHECK(mg_graph_num_edges(g) == 7);
        mg_graph_free(&g);
    }

    g = load(data("small.txt"), NULL);
    if (g) {
        CHECK(mg_graph_num_vertices(g) == 6);
        CHECK(mg_graph_index_base(g) == 0);
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_INT32);
        CHECK(csr_is(g, small_int, 8));
        mg_graph_free(&g);
    }

    g = load(data("small_float.el"), NULL);
    if (g) {
        edge want[8];
        memcpy(want, small_int, sizeof want);
        want[7].w = 2.5;
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_FLOAT);
        CHECK(csr_is(g, want, 8));
        mg_graph_free(&g);
    }

    g = load(data("small.gr"), NULL);
    if (g) {
        CHECK(mg_graph_num_vertices(g) == 6);
        CHECK(mg_graph_index_base(g) == 1);
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_INT32);
        CHECK(csr_is(g, small_int, 8));
        mg_graph_free(&g);
    }

    /* options: ignore weights, force undirected, explicit format for an odd extension */
    mg_read_options_init(&opts);
    opts.ignore_weights = true;
    opts.undirected = 1;
    g = load(data("small.gr"), &opts);
    if (g) {
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_NONE);
        CHECK(!mg_graph_is_directed(g));
        CHECK(mg_graph_num_edges(g) == 16);
        mg_graph_free(&g);
    }
    mg_read_options_init(&opts);
    opts.format = MG_FORMAT_SNAP;
    const char *odd = tmp("edges.dat");
    write_file(odd, "3 7\r\n7 3\r\n3 3\r\n3 7\r\n", 20); /* CRLF, a self-loop, a duplicate */
    g = load(odd, &opts);
    if (g) {
        static const edge want[2] = {{3, 7, 0}, {7, 3, 0}};
        CHECK(mg_graph_num_vertices(g) == 8); /* largest id + 1 */
        CHECK(csr_is(g, want, 2));
        mg_graph_free(&g);
    }
    opts.keep_self_loops = true;
    opts.keep_duplicates = true;
    g = load(odd, &opts);
    if (g) {
        CHECK(mg_graph_num_edges(g) == 4);
        mg_graph_free(&g);
    }

    /* a SNAP file with only comments, a DIMACS file without arcs: graphs without edges */
    write_file(tmp("none.txt"), "# nothing\n", 10);
    g = load(tmp("none.txt"), NULL);
    CHECK(g && mg_graph_num_vertices(g) == 0 && mg_graph_num_edges(g) == 0);
    mg_graph_free(&g);
    write_file(tmp("none.gr"), "p sp 3 0\n", 9);
    g = load(tmp("none.gr"), NULL);
    CHECK(g && mg_graph_num_vertices(g) == 3 && mg_graph_num_edges(g) == 0);
    mg_graph_free(&g);

    /* negative weights only when allowed; a file that ends without a newline */
    const char *neg = tmp("neg.mtx");
    const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 -1.5\n2 1 -3";
    write_file(neg, text, strlen(text));
    mg_read_options_init(&opts);
    opts.allow_negative_weights = true;
    g = load(neg, &opts);
    if (g) {
        static const edge want[2] = {{0, 1, -1.5}, {1, 0, -3}};
        CHECK(csr_is(g, want, 2));
        mg_graph_free(&g);
    }
}

/* ---- round trips ------------------------------------------------------------------------------- */

static int same_csr(const mg__csr *a, const mg__csr *b, uint32_t n, uint64_t m, bool weighted) {
    return memcmp(a->offsets, b->offsets, ((size_t)n + 1) * 8) == 0 &&
           memcmp(a->indices, b->indices, (size_t)m * 4) == 0 &&
           (!weighted || memcmp(a->weights, b->weights, (size_t)m * 4) == 0);
}

static int same_graph(const mg_graph a, const mg_graph b) {
    if (a->n != b->n || a->m != b->m || a->directed != b->directed ||
        a->weight_type != b->weight_type)
        return 0;
    bool w = a->weight_type != MG_WEIGHT_NONE;
    return same_csr(&a->out, &b->out, a->n, a->m, w) && same_csr(&a->in, &b->in, a->n, a->m, w);
}

static void test_round_trips(void) {
    static const char *files[] = {"small_general.mtx", "small_int.mtx", "small_real.mtx",
                                  "small_sym.mtx", "small.txt", "small_float.el", "small.gr"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        mg_graph g = load(data(files[i]), NULL), back = NULL;
        if (g == NULL) continue;
        CHECK_OK(ctx, mg_graph_write(ctx, g, tmp("round.mtx"), MG_FORMAT_AUTO));
        CHECK_OK(ctx, mg_graph_read(ctx, &back, tmp("round.mtx"), NULL));
        if (back) {
            CHECK(same_graph(g, back));
            CHECK(mg_graph_index_base(back) == 1);
            mg_graph_free(&back);
        }
        CHECK_OK(ctx, mg_graph_write(ctx, g, tmp("round.mgb"), MG_FORMAT_AUTO));
        CHECK_OK(ctx, mg_graph_read(ctx, &back, tmp("round.mgb"), NULL));
        if (back) {
            CHECK(same_graph(g, back));
            CHECK(back->weight_min == g->weight_min && back->weight_max == g->weight_max);
            CHECK(mg_graph_index_base(back) == mg_graph_index_base(g));
            if (!g->directed) CHECK(back->in.offsets == back->out.offsets);
            mg_graph_free(&back);
        }
        /* a binary directed graph read as undirected is rebuilt; weights can be dropped */
        mg_read_options opts;
        mg_read_options_init(&opts);
        opts.undirected = 1;
        opts.ignore_weights = true;
        CHECK_OK(ctx, mg_graph_read(ctx, &back, tmp("round.mgb"), &opts));
        if (back) {
            CHECK(!mg_graph_is_directed(back));
            CHECK(mg_graph_weight_type(back) == MG_WEIGHT_NONE);
            mg_graph_free(&back);
        }
        mg_graph_free(&g);
    }
    /* an empty-edged graph and writer format errors */
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 3, 0, NULL, NULL, NULL, MG_WEIGHT_NONE, NULL));
    if (g) {
        mg_graph back = NULL;
        CHECK_OK(ctx, mg_graph_write(ctx, g, tmp("empty.mgb"), MG_FORMAT_BINARY));
        CHECK_OK(ctx, mg_graph_read(ctx, &back, tmp("empty.mgb"), NULL));
        CHECK(back && mg_graph_num_vertices(back) == 3 && mg_graph_num_edges(back) == 0);
        mg_graph_free(&back);
        CHECK_OK(ctx, mg_graph_write(ctx, g, tmp("empty.mtx"), MG_FORMAT_MATRIX_MARKET));
        CHECK_OK(ctx, mg_graph_read(ctx, &back, tmp("empty.mtx"), NULL));
        CHECK(back && mg_graph_num_vertices(back) == 3 && mg_graph_num_edges(back) == 0);
        mg_graph_free(&back);
        CHECK(mg_graph_write(ctx, g, tmp("x.unknown"), MG_FORMAT_AUTO) == MG_INVALID_ARGUMENT);
        CHECK(mg_graph_write(ctx, g, tmp("x.txt"), MG_FORMAT_SNAP) == MG_INVALID_ARGUMENT);
        mg_graph_free(&g);
    }
}

/* ---- bad text files ---------------------------------------------------------------------------- */

typedef struct {
    const char *name;     /* file name (its extension picks the format) */
    const char *content;
    mg_status status;
    const char *where;    /* ":line:" the message must contain, or NULL */
    const char *words;    /* a phrase the message must contain, or NULL */
} bad_case;

#define MM "%%MatrixMarket matrix coordinate "
static const bad_case bad_cases[] = {
    {"empty.mtx", "", MG_PARSE_ERROR, ":1:", "empty"},
    {"nobanner.mtx", "3 3 1\n1 2\n", MG_PARSE_ERROR, ":1:", "banner"},
    {"garbled.mtx", "%%MatrixMarkt matrix coordinate pattern general\n2 2 1\n1 2\n",
     MG_PARSE_ERROR, ":1:", "banner"},
    {"short_banner.mtx", "%%MatrixMarket matrix coordinate\n2 2 1\n1 2\n", MG_PARSE_ERROR,
     ":1:", "banner"},
    {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", MG_PARSE_ERROR,
     ":1:", "array"},
    {"complex.mtx", MM "complex general\n2 2 1\n1 2 1 0\n", MG_PARSE_ERROR, ":1:", "complex"},
    {"field.mtx", MM "boolean general\n2 2 1\n1 2 1\n", MG_PARSE_ERROR, ":1:", "boolean"},
    {"hermitian.mtx", MM "real hermitian\n2 2 1\n1 2 1\n", MG_PARSE_ERROR, ":1:", "hermitian"},
    {"skew.mtx", MM "real skew-symmetric\n2 2 1\n2 1 1\n", MG_PARSE_ERROR, ":1:", "skew"},
    {"nosize.mtx", MM "pattern general\n% only comments\n", MG_PARSE_ERROR, ":3:", "size line"},
    {"size_text.mtx", MM "pattern general\n% c\n3 three 2\n1 2\n2 3\n", MG_PARSE_ERROR, ":3:",
     "three"},
    {"size_short.mtx", MM "pattern general\n3 3\n1 2\n", MG_PARSE_ERROR, ":2:", "entries"},
    {"size_neg.mtx", MM "pattern general\n3 -3 1\n1 2\n", MG_PARSE_ERROR, ":2:", "negative"},
    {"size_overflow.mtx", MM "pattern general\n3 3 99999999999999999999999\n1 2\n",
     MG_PARSE_ERROR, ":2:", "too large"},
    {"size_rows.mtx", MM "pattern general\n4294967296 2 1\n1 2\n", MG_PARSE_ERROR, ":2:",
     "exceeds"},
    /* the size line promises more entries than the bytes after it could hold: caught at once */
    {"huge_n.mtx", MM "pattern general\n4000000000 4000000000 1\n1 2\n", MG_PARSE_ERROR,
     ":2:", "may declare"},
    {"huge_n.gr", "p sp 4000000000 1\na 1 2 3\n", MG_PARSE_ERROR, ":1:", "may declare"},
    {"huge_id.txt", "0 1\n1 2\n4000000000 1\n", MG_PARSE_ERROR, ":3:", "may declare"},
    {"huge_nnz.mtx", MM "pattern general\n10 10 1000000000000000\n1 2\n2 3\n", MG_PARSE_ERROR,
     ":2:", "at most"},
    {"nonsquare_sym.mtx", MM "pattern symmetric\n3 4 1\n2 1\n", MG_PARSE_ERROR, ":2:",
     "square"},
    {"fewer.mtx", MM "pattern general\n% c\n30 30 4\n10 20\n20 30\n30 10\n", MG_PARSE_ERROR, ":6:",
     "ends after 3 entries"},
    {"more.mtx", MM "pattern general\n3 3 2\n1 2\n2 3\n\n3 1\n", MG_PARSE_ERROR, ":6:",
     "more entries"},
    {"row_range.mtx", MM "pattern general\n3 3 2\n1 2\n4 3\n", MG_PARSE_ERROR, ":4:",
     "out of range"},
    {"col_range.mtx", MM "pattern general\n3 2 2\n1 2\n2 3\n", MG_PARSE_ERROR, ":4:",
     "out of range"},
    {"zero.mtx", MM "pattern general\n3 3 2\n1 2\n0 3\n", MG_PARSE_ERROR, ":4:", "start at 1"},
    {"negid.mtx", MM "pattern general\n3 3 2\n1 2\n-1 3\n", MG_PARSE_ERROR, ":4:", "negative"},
    {"text_id.mtx", MM "pattern general\n3 3 2\n1 2\n2 x3\n", MG_PARSE_ERROR, ":4:", "x3"},
    {"float_id.mtx", MM "pattern general\n3 3 2\n1 2\n2.5 3\n", MG_PARSE_ERROR, ":4:", "2.5"},
    {"overflow_id.mtx", MM "pattern general\n3 3 2\n1 2\n2 184467440737095516160\n",
     MG_PARSE_ERROR, ":4:", "too large"},
    {"truncated.mtx", MM "integer general\n30 30 2\n10 20 5\n20 30\n", MG_PARSE_ERROR, ":4:",
     "truncated"},
    {"truncated1.mtx", MM "pattern general\n30 30 2\n10 20\n20\n", MG_PARSE_ERROR, ":4:",
     "truncated"},
    {"extra.mtx", MM "pattern general\n3 3 2\n1 2\n2 3 7\n", MG_PARSE_ERROR, ":4:", "extra"},
    {"nan.mtx", MM "real general\n3 3 2\n1 2 1.5\n2 3 nan\n", MG_PARSE_ERROR, ":4:", "finite"},
    {"inf.mtx", MM "real general\n3 3 2\n1 2 inf\n2 3 1\n", MG_PARSE_ERROR, ":3:", "finite"},
    {"float_overflow.mtx", MM "real general\n3 3 1\n1 2 1e300\n", MG_PARSE_ERROR, ":3:",
     "finite"},
    {"negw.mtx", MM "real general\n3 3 2\n1 2 1.5\n2 3 -2\n", MG_PARSE_ERROR, ":4:",
     "negative weight"},
    {"negint.mtx", MM "integer general\n3 3 2\n1 2 -1\n2 3 2\n", MG_PARSE_ERROR, ":3:",
     "negative weight"},
    {"int_range.mtx", MM "integer general\n3 3 2\n1 2 1\n2 3 2147483648\n", MG_PARSE_ERROR,
     ":4:", "int32"},
    {"int_real.mtx", MM "integer general\n3 3 2\n1 2 1\n2 3 2.5\n", MG_PARSE_ERROR, ":4:",
     "not an integer"},
    {"word_weight.mtx", MM "real general\n3 3 1\n1 2 heavy\n", MG_PARSE_ERROR, ":3:",
     "not a number"},
    {"first_error.mtx", MM "pattern general\n3 3 3\n1 2\n9 9\n0 1\n", MG_PARSE_ERROR, ":4:",
     "9"},
    {"crlf_bad.mtx", MM "pattern general\r\n3 3 2\r\n1 2\r\n2 4\r\n", MG_PARSE_ERROR, ":4:",
     "out of range"},
    /* SNAP */
    {"mixed.txt", "# c\n0 1\n1 2 5\n", MG_PARSE_ERROR, ":3:", "columns"},
    {"mixed2.txt", "0 1 1\n1 2 5\n2 3\n", MG_PARSE_ERROR, ":3:", "columns"},
    {"onecol.txt", "# c\n\n7\n", MG_PARSE_ERROR, ":3:", "2 or 3 columns"},
    {"snap_neg.txt", "0 1\n-2 1\n", MG_PARSE_ERROR, ":2:", "negative"},
    {"snap_big.txt", "0 1\n4294967295 1\n", MG_PARSE_ERROR, ":2:", "too large"},
    {"snap_text.edges", "0 1\n1 two\n", MG_PARSE_ERROR, ":2:", "two"},
    {"snap_nan.wel", "0 1 1\n1 2 NaN\n", MG_PARSE_ERROR, ":2:", "finite"},
    {"snap_negw.el", "0 1 1\n1 2 -0.5\n", MG_PARSE_ERROR, ":2:", "negative weight"},
    /* DIMACS */
    {"noproblem.gr", "c only comments\n", MG_PARSE_ERROR, ":2:", "problem line"},
    {"arcfirst.gr", "c x\na 1 2 3\np sp 2 1\n", MG_PARSE_ERROR, ":2:", "before the problem"},
    {"problem_type.gr", "p max 2 1\na 1 2 3\n", MG_PARSE_ERROR, ":1:", "max"},
    {"problem_count.gr", "p sp 2 x\na 1 2 3\n", MG_PARSE_ERROR, ":1:", "arc count"},
    {"gr_huge.gr", "p sp 2 100000000000\na 1 2 3\n", MG_PARSE_ERROR, ":1:", "at most"},
    {"gr_range.gr", "p sp 2 2\na 1 2 3\na 2 3 1\n", MG_PARSE_ERROR, ":3:", "out of range"},
    {"gr_zero.gr", "p sp 2 1\nc\na 0 1 3\n", MG_PARSE_ERROR, ":3:", "start at 1"},
    {"gr_second_p.gr", "p sp 2 2\na 1 2 3\np sp 2 2\na 2 1 1\n", MG_PARSE_ERROR, ":3:",
     "second problem"},
    {"gr_junk.gr", "p sp 2 1\nx 1 2 3\n", MG_PARSE_ERROR, ":2:", "unknown line"},
    {"gr_short.gr", "p sp 20 1\na 10 20\n", MG_PARSE_ERROR, ":2:", "truncated"},
    {"gr_fewer.gr", "p sp 200 3\na 100 200 3\na 200 100 3\n", MG_PARSE_ERROR, ":3:", "ends after 2"},
    {"gr_weight.gr", "p sp 2 1\na 1 2 1.5\n", MG_PARSE_ERROR, ":2:", "not an integer"},
    /* the path itself */
    {"unknown.xyz", "0 1\n", MG_INVALID_ARGUMENT, NULL, "extension"},
};

static void test_bad_files(void) {
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const bad_case *c = &bad_cases[i];
        const char *path = tmp(c->name);
        write_file(path, c->content, strlen(c->content));
        mg_graph g = NULL;
        mg_status st = mg_graph_read(ctx, &g, path, NULL);
        const char *msg = mg_context_error(ctx);
        int ok = st == c->status && g == NULL && strstr(msg, c->name) != NULL &&
                 (c->where == NULL || strstr(msg, c->where) != NULL) &&
                 (c->words == NULL || strstr(msg, c->words) != NULL);
        if (!ok)
            fprintf(stderr, "bad case %s: got %s, message \"%s\"\n", c->name,
                    mg_status_string(st), msg);
        CHECK(ok);
        mg_graph_free(&g);
    }

    /* paths that are not readable files */
    mg_graph g = NULL;
    CHECK(mg_graph_read(ctx, &g, tmp("missing.mtx"), NULL) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "missing.mtx") != NULL);
    CHECK(mkdir(tmp("dir.mtx"), 0755) == 0);
    CHECK(mg_graph_read(ctx, &g, tmp("dir.mtx"), NULL) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "directory") != NULL);
    CHECK(mg_graph_read(ctx, &g, tmp("dir.mtx"), NULL) == MG_IO_ERROR);
    mg_read_options opts;
    mg_read_options_init(&opts);
    opts.format = MG_FORMAT_BINARY;
    CHECK(mg_graph_read(ctx, &g, tmp("dir.mtx"), &opts) == MG_IO_ERROR);
    if (geteuid() != 0) { /* root reads anything */
        const char *locked = tmp("locked.mtx");
        write_file(locked, bad_cases[1].content, strlen(bad_cases[1].content));
        chmod(locked, 0);
        CHECK(mg_graph_read(ctx, &g, locked, NULL) == MG_IO_ERROR);
        CHECK(strstr(mg_context_error(ctx), "locked.mtx") != NULL);
    }
    CHECK(mg_graph_read(ctx, &g, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_graph_read(ctx, NULL, data("small.gr"), NULL) == MG_INVALID_ARGUMENT);
    mg_read_options_init(&opts);
    opts.undirected = 2;
    CHECK(mg_graph_read(ctx, &g, data("small.gr"), &opts) == MG_INVALID_ARGUMENT);
    CHECK(g == NULL);
}

/* ---- corrupted binary files -------------------------------------------------------------------- */

static size_t slurp(const char *path, char **out) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc((size_t)len);
    size_t got = fread(*out, 1, (size_t)len, f);
    fclose(f);
    return got;
}

static void expect_binary_failure(const char *name, const char *bytes, size_t len,
                                  const char *words) {
    const char *path = tmp(name);
    write_file(path, bytes, len);
    mg_graph g = NULL;
    mg_status st = mg_graph_read(ctx, &g, path, NULL);
    const char *msg = mg_context_error(ctx);
    int ok = st == MG_PARSE_ERROR && g == NULL && strstr(msg, name) != NULL &&
             strstr(msg, words) != NULL;
    if (!ok) fprintf(stderr, "binary %s: got %s, \"%s\"\n", name, mg_status_string(st), msg);
    CHECK(ok);
    mg_graph_free(&g);
}

static void test_bad_binary(void) {
    mg_graph g = load(data("small_real.mtx"), NULL);
    if (g == NULL) return;
    CHECK_OK(ctx, mg_graph_write(ctx, g, tmp("good.mgb"), MG_FORMAT_BINARY));
    mg_graph_free(&g);
    char *b = NULL;
    size_t len = slurp(tmp("good.mgb"), &b);
    CHECK(len == 64 + 2 * (7 * 8 + 8 * 4 + 8 * 4));
    if (len < 100) {
        free(b);
        return;
    }
    char *c = malloc(len);
    memcpy(c, b, len);
    c[0] ^= 1;
    expect_binary_failure("magic.mgb", c, len, "magic");
    memcpy(c, b, len);
    c[8] = 9; /* version */
    expect_binary_failure("version.mgb", c, len, "version 9");
    expect_binary_failure("truncated.mgb", b, len - 4, "truncated");
    expect_binary_failure("header_only.mgb", b, 40, "truncated");
    memcpy(c, b, len);
    c[56] ^= 0x10; /* the checksum itself */
    expect_binary_failure("checksum.mgb", c, len, "checksum");
    memcpy(c, b, len);
    c[len / 2] ^= 0x01; /* one payload bit */
    expect_binary_failure("payload.mgb", c, len, "checksum");
    memcpy(c, b, len);
    uint64_t huge = 1ull << 40; /* m = 2^40 in a tiny file: refused before any allocation */
    memcpy(c + 32, &huge, 8);
    expect_binary_failure("huge_m.mgb", c, len, "payload");
    free(c);
    free(b);
}

/* ---- writers that fail leave nothing behind ---------------------------------------------------- */

static int leftovers(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return 0;
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp.") != NULL) count++;
    closedir(d);
    return count;
}

static void test_writer_failures(void) {
    mg_graph g = load(data("small_int.mtx"), NULL);
    if (g == NULL) return;
    static const mg_format formats[2] = {MG_FORMAT_MATRIX_MARKET, MG_FORMAT_BINARY};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        CHECK(mg_graph_write(ctx, g, tmp("no/such/dir/out.mtx"), formats[i]) == MG_IO_ERROR);
        CHECK(strstr(mg_context_error(ctx), "out.mtx") != NULL);
        CHECK(stat(tmp("no/such/dir/out.mtx"), &st) != 0);
        /* a parent that is a regular file */
        write_file(tmp("plain"), "x", 1);
        CHECK(mg_graph_write(ctx, g, tmp("plain/out.mgb"), formats[i]) == MG_IO_ERROR);
        /* the target is a directory: the rename fails and the temporary goes */
        CHECK(mg_graph_write(ctx, g, tmp("dir.mtx"), formats[i]) == MG_IO_ERROR);
        if (geteuid() != 0) {
            CHECK(mkdir(tmp("ro"), 0555) == 0 || chmod(tmp("ro"), 0555) == 0);
            CHECK(mg_graph_write(ctx, g, tmp("ro/out.mtx"), formats[i]) == MG_IO_ERROR);
            CHECK(stat(tmp("ro/out.mtx"), &st) != 0);
        }
        CHECK(leftovers(tmpdir) == 0);
    }
    /* a failure half way through the data: a file-size limit makes write() fail with EFBIG
     * (SIGXFSZ ignored), after the temporary file exists and holds part of the graph */
    for (int i = 0; i < 2; i++) {
        struct rlimit old, small = {64, 64};
        getrlimit(RLIMIT_FSIZE, &old);
        small.rlim_max = old.rlim_max;
        void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &small);
        mg_status st = mg_graph_write(ctx, g, tmp("partial.out"), formats[i]);
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, was);
        struct stat sb;
        CHECK(st == MG_IO_ERROR);
        CHECK(strstr(mg_context_error(ctx), "partial.out") != NULL);
        CHECK(stat(tmp("partial.out"), &sb) != 0);
        CHECK(leftovers(tmpdir) == 0);
    }
    /* failed allocations inside the writers */
    for (uint64_t k = 1; k < 8; k++) {
        for (int i = 0; i < 2; i++) {
            mg__inject_alloc_failure(k);
            mg_status st = mg_graph_write(ctx, g, tmp("inj.out"), formats[i]);
            mg__inject_alloc_failure(0);
            CHECK(st == MG_SUCCESS || st == MG_OUT_OF_MEMORY);
            CHECK(leftovers(tmpdir) == 0);
        }
    }
    mg_graph_free(&g);
}

/* ---- the parallel parser ----------------------------------------------------------------------- */

/* A few MB of random edges so the body splits into several chunks. */
static char *big_mtx(size_t lines, size_t *len, uint32_t n) {
    size_t cap = lines * 40 + 200;
    char *s = malloc(cap);
    size_t p = (size_t)snprintf(s, cap, "%%%%MatrixMarket matrix coordinate real general\n"
                                        "%% generated\n%u %u %zu\n", n, n, lines);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < lines; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t u = (uint32_t)(x % n) + 1, v = (uint32_t)((x >> 32) % n) + 1;
        p += (size_t)snprintf(s + p, cap - p, "%u %u %u.%02u\n", u, v, (unsigned)(x >> 50) % 100,
                              (unsigned)(x >> 20) % 100);
    }
    *len = p;
    return s;
}

static void test_parallel(void) {
    const size_t lines = 300000;
    size_t len;
    char *s = big_mtx(lines, &len, 50000);
    write_file(tmp("big.mtx"), s, len);
    mg_graph g1 = NULL, g2 = NULL;
    omp_set_num_threads(1);
    CHECK_OK(ctx, mg_graph_read(ctx, &g1, tmp("big.mtx"), NULL));
    omp_set_num_threads(2);
    CHECK_OK(ctx, mg_graph_read(ctx, &g2, tmp("big.mtx"), NULL));
    CHECK(g1 && g2 && same_graph(g1, g2));
    mg_graph_free(&g1);
    mg_graph_free(&g2);

    /* two errors deep in the file: the earlier one (line 200003) is reported */
    char *e = malloc(len + 1);
    memcpy(e, s, len);
    size_t line = 1, at1 = 0, at2 = 0;
    for (size_t i = 0; i < len; i++)
        if (e[i] == '\n') {
            line++;
            if (line == 200003) at1 = i + 1;
            if (line == 250003) at2 = i + 1;
        }
    e[at1] = 'x';
    e[at2] = 'y';
    write_file(tmp("big_bad.mtx"), e, len);
    for (int t = 1; t <= 2; t++) {
        omp_set_num_threads(t);
        CHECK(mg_graph_read(ctx, &g1, tmp("big_bad.mtx"), NULL) == MG_PARSE_ERROR);
        CHECK(strstr(mg_context_error(ctx), "big_bad.mtx:200003:") != NULL);
    }
    /* one line too many at the very end */
    memcpy(e, s, len);
    memcpy(e + len, "1", 1);
    write_file(tmp("big_more.mtx"), e, len + 1);
    CHECK(mg_graph_read(ctx, &g1, tmp("big_more.mtx"), NULL) == MG_PARSE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "big_more.mtx:300004: more entries") != NULL);
    free(e);
    free(s);
}

/* ---- failed allocations ------------------------------------------------------------------------ */

static int progress_calls = 0;
static void progress(double fraction, void *user) {
    (void)user;
    if (fraction >= 0 && fraction <= 1) progress_calls++;
}

static void test_alloc_failures(void) {
    static const char *files[] = {"small_int.mtx", "small_float.el", "small.gr"};
    for (size_t f = 0; f < 3; f++) {
        int failures = 0;
        for (uint64_t k = 1; k < 60; k++) {
            mg_graph g = NULL;
            mg__inject_alloc_failure(k);
            mg_status st = mg_graph_read(ctx, &g, data(files[f]), NULL);
            mg__inject_alloc_failure(0);
            CHECK(st == MG_SUCCESS || st == MG_OUT_OF_MEMORY);
            CHECK((st == MG_SUCCESS) == (g != NULL));
            failures += st == MG_OUT_OF_MEMORY;
            mg_graph_free(&g);
        }
        CHECK(failures > 0);
    }
    mg_graph g = load(data("small_real.mtx"), NULL);
    CHECK_OK(ctx, mg_graph_write(ctx, g, tmp("alloc.mgb"), MG_FORMAT_BINARY));
    mg_graph_free(&g);
    for (uint64_t k = 1; k < 20; k++) {
        mg__inject_alloc_failure(k);
        mg_status st = mg_graph_read(ctx, &g, tmp("alloc.mgb"), NULL);
        mg__inject_alloc_failure(0);
        CHECK(st == MG_SUCCESS || st == MG_OUT_OF_MEMORY);
        mg_graph_free(&g);
    }
    mg_read_options opts;
    mg_read_options_init(&opts);
    opts.progress = progress;
    g = load(data("small.gr"), &opts);
    CHECK(progress_calls >= 2);
    mg_graph_free(&g);
}

int main(void) {
    datadir = getenv("MG_TEST_DATA");
    if (datadir == NULL) datadir = "tests/data";
    if (temp_dir_make("io") != 0) return 2;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    test_good_files();
    test_round_trips();
    test_bad_files();
    test_bad_binary();
    test_writer_failures();
    test_parallel();
    test_alloc_failures();
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
