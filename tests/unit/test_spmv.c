/*
 * test_spmv.c — mg_spmv on the CPU: a small rectangular matrix with an empty row and column worked
 * out by hand for every semiring, type and transpose; random matrices with a dense row for every
 * (semiring, type, values, transpose) against mg_check_spmv and the test's own serial product, on
 * 1 to 5 threads (so the dense row is split between threads); alpha/beta; an or-and SpMV as one BFS
 * level, against mg_bfs; explicit zeros in or-and; every bad argument, with y left as it was; the
 * verifier catching a wrong entry; allocation failures.
 */
#include "check.h"
#include "dense_vector.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <string.h>

static mg_context ctx;

static const mg_semiring semirings[] = {MG_SEMIRING_PLUS_TIMES, MG_SEMIRING_MIN_PLUS,
                                        MG_SEMIRING_MAX_TIMES, MG_SEMIRING_OR_AND};
static const mg_values value_kinds[] = {MG_VALUES_NONE, MG_VALUES_FLOAT, MG_VALUES_DOUBLE};
static const mg_type types[] = {MG_FLOAT, MG_DOUBLE};

static mg_dense vec(mg_type type, uint32_t rows, const double *v) {
    return test_vector(ctx, type, rows, v);
}

static double at(const mg_dense X, uint32_t i) { return test_entry(ctx, X, i); }

/* A from coordinates with double values given, stored as `kind`. */
static mg_matrix from_coo(uint32_t rows, uint32_t cols, uint64_t nnz, const uint32_t *r,
                          const uint32_t *c, const double *v, mg_values kind) {
    mg_matrix A = NULL;
    float *f = malloc((nnz ? nnz : 1) * sizeof *f);
    for (uint64_t k = 0; k < nnz; k++) f[k] = (float)v[k];
    const void *values = kind == MG_VALUES_DOUBLE ? (const void *)v : kind == MG_VALUES_FLOAT ? (const void *)f : NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, rows, cols, nnz, r, c, values, kind));
    free(f);
    return A;
}

/* ---- by hand ----------------------------------------------------------------------------------- */

/* A = [ 2 0 0 -1 ]     x = (1, 3, 0.5, 2)   (A x)   plus: 0   min: 1   max: 2   or: 1
 *     [ 0 0 0  0 ]                                  0        inf      -inf     0
 *     [ 4 0 3  0 ]                                  5.5      3.5      4        1
 * Column 1 is empty. A^T x' with x' = (1, 5, -2): plus (-6, 0, -6, -1), min (2, inf, 1, 0),
 * max (2, -inf, -6, -1), or (1, 0, 1, 1). Pattern A: plus (3, 0, 1.5), A^T: (-1, 0, -2, 1). */
static void test_by_hand(void) {
    const uint32_t r[] = {0, 0, 2, 2};
    const uint32_t c[] = {0, 3, 0, 2};
    const double v[] = {2, -1, 4, 3};
    const double x[] = {1, 3, 0.5, 2}, xt[] = {1, 5, -2};
    const double inf = INFINITY;
    const double want[4][3] = {{0, 0, 5.5}, {1, inf, 3.5}, {2, -inf, 4}, {1, 0, 1}};
    const double want_t[4][4] = {{-6, 0, -6, -1}, {2, inf, 1, 0}, {2, -inf, -6, -1}, {1, 0, 1, 1}};
    for (int ti = 0; ti < 2; ti++) {
        for (int vk = 1; vk < 3; vk++) {
            mg_matrix A = from_coo(3, 4, 4, r, c, v, value_kinds[vk]);
            for (int s = 0; s < 4; s++) {
                mg_spmv_options o;
                mg_spmv_options_init(&o);
                o.semiring = semirings[s];
                mg_dense X = vec(types[ti], 4, x), Y = vec(types[ti], 3, NULL);
                CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, &o));
                for (uint32_t i = 0; i < 3; i++) CHECK(at(Y, i) == want[s][i]);
                CHECK_OK(ctx, mg_check_spmv(ctx, A, X, NULL, Y, &o));
                mg_dense_free(&X);
                mg_dense_free(&Y);
                o.transpose = true;
                X = vec(types[ti], 3, xt);
                Y = vec(types[ti], 4, NULL);
                CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, &o));
                for (uint32_t i = 0; i < 4; i++) CHECK(at(Y, i) == want_t[s][i]);
                CHECK_OK(ctx, mg_check_spmv(ctx, A, X, NULL, Y, &o));
                mg_dense_free(&X);
                mg_dense_free(&Y);
            }
            mg_matrix_free(&A);
        }
        /* a pattern reads every stored entry as 1 */
        mg_matrix P = from_coo(3, 4, 4, r, c, v, MG_VALUES_NONE);
        mg_dense X = vec(types[ti], 4, x), Y = vec(types[ti], 3, NULL);
        CHECK_OK(ctx, mg_spmv(ctx, P, X, Y, NULL));
        CHECK(at(Y, 0) == 3 && at(Y, 1) == 0 && at(Y, 2) == 1.5);
        mg_dense_free(&X);
        mg_dense_free(&Y);
        mg_spmv_options o;
        mg_spmv_options_init(&o);
        o.transpose = true;
        X = vec(types[ti], 3, xt);
        Y = vec(types[ti], 4, NULL);
        CHECK_OK(ctx, mg_spmv(ctx, P, X, Y, &o));
        CHECK(at(Y, 0) == -1 && at(Y, 1) == 0 && at(Y, 2) == -2 && at(Y, 3) == 1);
        mg_dense_free(&X);
        mg_dense_free(&Y);
        mg_matrix_free(&P);
    }
}

/* ---- random matrices against two references ----------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* rows x cols with `per_row` random entries per row on average, every third row empty, row
 * `dense_row` full, values in [-2, 2) with some exact zeros. */
typedef struct {
    uint32_t rows, cols;
    uint64_t nnz;
    uint32_t *r, *c;
    double *v;
} coo_list;

static coo_list random_coo(uint32_t rows, uint32_t cols, uint32_t per_row, uint32_t dense_row) {
    coo_list L = {rows, cols, 0, NULL, NULL, NULL};
    const uint64_t cap = (uint64_t)rows * per_row * 2 + cols;
    L.r = malloc(cap * sizeof *L.r);
    L.c = malloc(cap * sizeof *L.c);
    L.v = malloc(cap * sizeof *L.v);
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t k = i == dense_row ? cols : i % 3 == 1 ? 0 : (uint32_t)(next_rand() % (2 * per_row + 1));
        for (uint32_t q = 0; q < k; q++) {
            L.r[L.nnz] = i;
            L.c[L.nnz] = i == dense_row ? q : (uint32_t)(next_rand() % (cols - 1)); /* last column empty */
            L.v[L.nnz] = next_rand() % 8 == 0 ? 0.0 : (double)(next_rand() % 4096) / 1024.0 - 2.0;
            L.nnz++;
        }
    }
    return L;
}

static void free_coo(coo_list *L) {
    free(L->r);
    free(L->c);
    free(L->v);
}

/* The test's own serial product of A's CSR (in double, A's value converted to x's type). */
static void serial(const mg_matrix A, mg_semiring s, bool transpose, bool single, const double *x,
                   double *y, uint32_t out_n) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    mg_matrix_csr(A, &off, &idx, &vals);
    const double id = s == MG_SEMIRING_MIN_PLUS ? INFINITY : s == MG_SEMIRING_MAX_TIMES ? -INFINITY : 0;
    for (uint32_t i = 0; i < out_n; i++) y[i] = id;
    for (uint32_t i = 0; i < mg_matrix_rows(A); i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            double a = vals == NULL ? 1.0
                       : mg_matrix_values(A) == MG_VALUES_FLOAT ? ((const float *)vals)[e]
                                                                : ((const double *)vals)[e];
            if (single) a = (float)a;
            uint32_t in = transpose ? i : idx[e], out = transpose ? idx[e] : i;
            double t;
            switch (s) {
            case MG_SEMIRING_PLUS_TIMES: y[out] += a * x[in]; break;
            case MG_SEMIRING_MIN_PLUS: t = a + x[in]; if (t < y[out]) y[out] = t; break;
            case MG_SEMIRING_MAX_TIMES: t = a * x[in]; if (t > y[out]) y[out] = t; break;
            case MG_SEMIRING_OR_AND: if (a != 0 && x[in] != 0) y[out] = 1; break;
            }
        }
}

static void test_random(void) {
    const int saved = omp_get_max_threads();
    /* 8000 x 20000, about 2 entries a row and one full row: rows + entries about 44000, past the
     * engine's serial cut-off, and the full row is longer than a thread's share for 3 or more
     * threads, so it is split. */
    coo_list L = random_coo(8000, 20000, 3, 1234);
    int bad = 0;
    for (int vk = 0; vk < 3; vk++) {
        mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, value_kinds[vk]);
        for (int tr = 0; tr < 2; tr++) {
            const uint32_t in_n = tr ? L.rows : L.cols, out_n = tr ? L.cols : L.rows;
            double *x = malloc(in_n * sizeof *x), *want = malloc(out_n * sizeof *want);
            for (uint32_t i = 0; i < in_n; i++)
                x[i] = i % 11 == 0 ? 0 : (double)(next_rand() % 2048) / 512.0 - 2.0;
            for (int ti = 0; ti < 2; ti++) {
                mg_dense X = vec(types[ti], in_n, x), Y = vec(types[ti], out_n, NULL);
                for (int s = 0; s < 4; s++) {
                    mg_spmv_options o;
                    mg_spmv_options_init(&o);
                    o.semiring = semirings[s];
                    o.transpose = tr;
                    serial(A, o.semiring, tr, types[ti] == MG_FLOAT, x, want, out_n);
                    for (int threads = 1; threads <= 5; threads += 2) {
                        omp_set_num_threads(threads);
                        CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, &o));
                        CHECK_OK(ctx, mg_check_spmv(ctx, A, X, NULL, Y, &o));
                        const double tol = types[ti] == MG_FLOAT ? 1e-4 : 1e-10;
                        for (uint32_t i = 0; i < out_n; i++) {
                            double got = at(Y, i);
                            if (!(got == want[i] || fabs(got - want[i]) <= tol * (1 + fabs(want[i])))) {
                                if (bad++ < 5)
                                    fprintf(stderr, "semiring %d type %d values %d transpose %d threads %d: "
                                            "y[%u] = %g, want %g\n", s, ti, vk, tr, threads, i, got, want[i]);
                            }
                        }
                    }
                }
                mg_dense_free(&X);
                mg_dense_free(&Y);
            }
            free(x);
            free(want);
        }
        mg_matrix_free(&A);
    }
    CHECK(bad == 0);
    free_coo(&L);
    omp_set_num_threads(saved);
}

/* ---- alpha and beta ----------------------------------------------------------------------------- */

static void test_alpha_beta(void) {
    coo_list L = random_coo(500, 400, 6, 7);
    mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_DOUBLE);
    double *x = malloc(400 * sizeof *x), *y0 = malloc(500 * sizeof *y0), *ax = malloc(500 * sizeof *ax);
    for (uint32_t i = 0; i < 400; i++) x[i] = (double)(i % 7) - 3;
    for (uint32_t i = 0; i < 500; i++) y0[i] = (double)(i % 5) - 1;
    for (int ti = 0; ti < 2; ti++) {
        mg_dense X = vec(types[ti], 400, x), Yin = vec(types[ti], 500, y0), Y = vec(types[ti], 500, y0);
        mg_spmv_options o;
        mg_spmv_options_init(&o);
        o.alpha = 2.5;
        o.beta = -0.5;
        serial(A, MG_SEMIRING_PLUS_TIMES, false, types[ti] == MG_FLOAT, x, ax, 500);
        CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, &o));
        CHECK_OK(ctx, mg_check_spmv(ctx, A, X, Yin, Y, &o));
        int off = 0;
        for (uint32_t i = 0; i < 500; i++)
            off += fabs(at(Y, i) - (2.5 * ax[i] - 0.5 * y0[i])) > 1e-4 * (1 + fabs(ax[i]));
        CHECK(off == 0);
        /* beta 0 never reads y: NaN there does not spread */
        CHECK_OK(ctx, mg_dense_fill(ctx, Y, NAN));
        o.beta = 0;
        CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, &o));
        int nans = 0;
        for (uint32_t i = 0; i < 500; i++) nans += isnan(at(Y, i));
        CHECK(nans == 0);
        /* the other semirings accumulate into y with beta 1 */
        for (int s = 1; s < 4; s++) {
            o.semiring = semirings[s];
            o.alpha = 1;
            o.beta = 1;
            double *want = malloc(500 * sizeof *want);
            serial(A, o.semiring, false, types[ti] == MG_FLOAT, x, want, 500);
            for (uint32_t i = 0; i < 500; i++) CHECK_OK(ctx, mg_dense_set(ctx, Y, i, 0, y0[i]));
            CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, &o));
            CHECK_OK(ctx, mg_check_spmv(ctx, A, X, Yin, Y, &o));
            int wrong = 0;
            for (uint32_t i = 0; i < 500; i++) {
                double w = o.semiring == MG_SEMIRING_MIN_PLUS    ? fmin(y0[i], want[i])
                           : o.semiring == MG_SEMIRING_MAX_TIMES ? fmax(y0[i], want[i])
                                                                 : (y0[i] != 0 || want[i] != 0);
                wrong += fabs(at(Y, i) - w) > 1e-5 * (1 + fabs(w));
            }
            CHECK(wrong == 0);
            free(want);
        }
        mg_dense_free(&X);
        mg_dense_free(&Yin);
        mg_dense_free(&Y);
    }
    free(x);
    free(y0);
    free(ax);
    mg_matrix_free(&A);
    free_coo(&L);
}

/* ---- a BFS level is an or-and SpMV -------------------------------------------------------------- */

/* frontier_{k+1} = (A^T frontier_k) and not visited, with A the graph's adjacency (A(u,v) for the
 * arc u -> v): the vertices mg_bfs puts at depth k + 1. */
static void test_bfs_levels(void) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = 10;
    go.edge_factor = 4;
    go.graph.directed = true;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector depth = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, g, 0, depth, NULL));
    int32_t *d = malloc(n * sizeof *d);
    CHECK_OK(ctx, mg_vector_extract(ctx, depth, d));
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_graph_matrix(ctx, g, &A));
    double *f = calloc(n, sizeof *f);
    bool *visited = calloc(n, sizeof *visited);
    f[0] = 1;
    visited[0] = true;
    mg_dense F = vec(MG_FLOAT, n, f), Y = vec(MG_FLOAT, n, NULL);
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    o.semiring = MG_SEMIRING_OR_AND;
    o.transpose = true;
    int mismatches = 0, levels = 0;
    uint32_t reached = 1;
    for (int level = 1; level < 64; level++) {
        CHECK_OK(ctx, mg_spmv(ctx, A, F, Y, &o));
        CHECK_OK(ctx, mg_check_spmv(ctx, A, F, NULL, Y, &o));
        uint32_t count = 0;
        for (uint32_t v = 0; v < n; v++) {
            double y = at(Y, v);
            if (y != 0 && y != 1) mismatches++;
            f[v] = (y == 1 && !visited[v]) ? 1 : 0;
            if (f[v] == 1) {
                visited[v] = true;
                count++;
            }
            if ((f[v] == 1) != (d[v] == level)) mismatches++;
        }
        if (count == 0) break;
        levels++;
        reached += count;
        for (uint32_t v = 0; v < n; v++) CHECK_OK(ctx, mg_dense_set(ctx, F, v, 0, f[v]));
    }
    uint32_t bfs_reached = 0;
    for (uint32_t v = 0; v < n; v++) bfs_reached += d[v] >= 0;
    CHECK(mismatches == 0);
    CHECK(levels >= 2);           /* the test walks several levels, not a trivial graph */
    CHECK(reached == bfs_reached);
    mg_dense_free(&F);
    mg_dense_free(&Y);
    free(f);
    free(visited);
    free(d);
    mg_matrix_free(&A);
    mg_vector_free(&depth);
    mg_graph_free(&g);

    /* an explicitly stored zero is false in or-and; a pattern entry is true */
    const uint32_t r[] = {0, 1}, c[] = {0, 0};
    const double v[] = {0.0, 0.25};
    mg_matrix Z = from_coo(2, 1, 2, r, c, v, MG_VALUES_DOUBLE);
    const double one = 1;
    mg_dense X = vec(MG_DOUBLE, 1, &one), Yz = vec(MG_DOUBLE, 2, NULL);
    o.transpose = false;
    CHECK_OK(ctx, mg_spmv(ctx, Z, X, Yz, &o));
    CHECK(at(Yz, 0) == 0 && at(Yz, 1) == 1);
    mg_matrix_free(&Z);
    Z = from_coo(2, 1, 2, r, c, v, MG_VALUES_NONE);
    CHECK_OK(ctx, mg_spmv(ctx, Z, X, Yz, &o));
    CHECK(at(Yz, 0) == 1 && at(Yz, 1) == 1);
    mg_matrix_free(&Z);
    mg_dense_free(&X);
    mg_dense_free(&Yz);
}

/* ---- bad arguments ------------------------------------------------------------------------------ */

/* The call fails with `want`, its message contains `needle`, and y still holds 7 everywhere. */
static void expect_fail(mg_status got, mg_status want, const char *needle, const mg_dense y) {
    CHECK(got == want);
    if (strstr(mg_context_error(ctx), needle) == NULL) {
        fprintf(stderr, "message \"%s\" does not contain \"%s\"\n", mg_context_error(ctx), needle);
        CHECK(0);
    }
    if (y == NULL) return;
    int changed = 0;
    for (uint32_t i = 0; i < mg_dense_rows(y); i++) changed += at(y, i) != 7;
    CHECK(changed == 0);
}

static void test_bad_arguments(void) {
    const uint32_t r[] = {0, 6}, c[] = {4, 0};
    const double v[] = {1, 2};
    mg_matrix A = from_coo(7, 5, 2, r, c, v, MG_VALUES_DOUBLE); /* 7 x 5 */
    mg_dense x = vec(MG_DOUBLE, 5, NULL), y = vec(MG_DOUBLE, 7, NULL);
    mg_dense xf = vec(MG_FLOAT, 5, NULL), x7 = vec(MG_DOUBLE, 7, NULL), y5 = vec(MG_DOUBLE, 5, NULL);
    mg_dense x2 = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &x2, 5, 2, MG_DOUBLE));
    CHECK_OK(ctx, mg_dense_fill(ctx, y, 7));
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    CHECK(o.semiring == MG_SEMIRING_PLUS_TIMES && !o.transpose && o.alpha == 1 && o.beta == 0);

    expect_fail(mg_spmv(ctx, NULL, x, y, &o), MG_INVALID_ARGUMENT, "mg_spmv: A is NULL", y);
    expect_fail(mg_spmv(ctx, A, NULL, y, &o), MG_INVALID_ARGUMENT, "mg_spmv: x is NULL", y);
    expect_fail(mg_spmv(ctx, A, x, NULL, &o), MG_INVALID_ARGUMENT, "mg_spmv: y is NULL", NULL);
    expect_fail(mg_spmv(ctx, A, x7, y, &o), MG_INVALID_ARGUMENT, "x has 7 rows but A has 5 columns", y);
    expect_fail(mg_spmv(ctx, A, x, y5, &o), MG_INVALID_ARGUMENT, "y has 5 rows but A has 7 rows", NULL);
    expect_fail(mg_spmv(ctx, A, xf, y, &o), MG_INVALID_ARGUMENT, "y is MG_DOUBLE but x is MG_FLOAT", y);
    expect_fail(mg_spmv(ctx, A, x2, y, &o), MG_INVALID_ARGUMENT, "x has 2 columns", y);
    expect_fail(mg_spmv(ctx, A, y, y, &o), MG_INVALID_ARGUMENT, "same object", y);
    o.transpose = true; /* A^T is 5 x 7: x needs 7 rows */
    expect_fail(mg_spmv(ctx, A, x, y, &o), MG_INVALID_ARGUMENT, "x has 5 rows but A^T has 7 columns", y);
    o.transpose = false;
    o.semiring = (mg_semiring)9;
    expect_fail(mg_spmv(ctx, A, x, y, &o), MG_INVALID_ARGUMENT, "opts->semiring = 9", y);
    o.semiring = MG_SEMIRING_PLUS_TIMES;
    o.alpha = NAN;
    expect_fail(mg_spmv(ctx, A, x, y, &o), MG_INVALID_ARGUMENT, "opts->alpha is NaN", y);
    o.alpha = 1;
    o.beta = NAN;
    expect_fail(mg_spmv(ctx, A, x, y, &o), MG_INVALID_ARGUMENT, "opts->beta is NaN", y);
    o.beta = 0;
    o.semiring = MG_SEMIRING_MIN_PLUS;
    o.alpha = 2;
    expect_fail(mg_spmv(ctx, A, x, y, &o), MG_INVALID_ARGUMENT, "opts->alpha = 2 with the min-plus", y);
    o.alpha = 1;
    o.beta = 0.5;
    expect_fail(mg_spmv(ctx, A, x, y, &o), MG_INVALID_ARGUMENT, "opts->beta = 0.5 with the min-plus", y);
    /* a garbage handle is caught by its magic */
    struct mg_dense_s garbage;
    memset(&garbage, 0, sizeof garbage);
    expect_fail(mg_spmv(ctx, A, &garbage, y, NULL), MG_INVALID_OBJECT, "mg_spmv: x is not a live", y);
    o.beta = 1; /* accepted: y = y min A x */
    CHECK_OK(ctx, mg_spmv(ctx, A, x, y, &o));
    CHECK(mg_spmv(NULL, A, x, y, &o) == MG_INVALID_ARGUMENT);

    mg_dense_free(&x);
    mg_dense_free(&y);
    mg_dense_free(&xf);
    mg_dense_free(&x7);
    mg_dense_free(&y5);
    mg_dense_free(&x2);
    mg_matrix_free(&A);
}

/* The verifier finds a wrong entry and names it; allocation failures leave y as it was. */
static void test_verifier_and_failures(void) {
    coo_list L = random_coo(400, 300, 5, 3);
    mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_DOUBLE);
    double *x = malloc(300 * sizeof *x);
    for (uint32_t i = 0; i < 300; i++) x[i] = 1.0 + i % 3;
    mg_dense X = vec(MG_DOUBLE, 300, x), Y = vec(MG_DOUBLE, 400, NULL);
    CHECK_OK(ctx, mg_spmv(ctx, A, X, Y, NULL));
    CHECK_OK(ctx, mg_check_spmv(ctx, A, X, NULL, Y, NULL));
    CHECK_OK(ctx, mg_dense_set(ctx, Y, 42, 0, at(Y, 42) + 1e-6));
    CHECK(mg_check_spmv(ctx, A, X, NULL, Y, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "y[42]") != NULL);

    /* transpose builds the CSC: every allocation failing in turn fails cleanly, y untouched */
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    o.transpose = true;
    mg_dense Xt = vec(MG_DOUBLE, 400, NULL), Yt = vec(MG_DOUBLE, 300, NULL);
    CHECK_OK(ctx, mg_dense_fill(ctx, Xt, 1));
    CHECK_OK(ctx, mg_dense_fill(ctx, Yt, 7));
    int failures = 0, clean = 1;
    for (uint64_t k = 1; k < 64; k++) {
        mg_matrix B = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_DOUBLE);
        mg__inject_alloc_failure(k);
        mg_status st = mg_spmv(ctx, B, Xt, Yt, &o);
        mg__inject_alloc_failure(0);
        mg_matrix_free(&B);
        if (st == MG_SUCCESS) break;
        failures++;
        if (st != MG_OUT_OF_MEMORY) clean = 0;
        for (uint32_t i = 0; i < 300; i++) clean &= at(Yt, i) == 7;
    }
    CHECK(failures >= 2 && clean);
    mg_dense_free(&Xt);
    mg_dense_free(&Yt);
    mg_dense_free(&X);
    mg_dense_free(&Y);
    free(x);
    mg_matrix_free(&A);
    free_coo(&L);
}

/* mg_context_finish: nothing to wait for on the CPU; a dead context is refused. */
static void test_finish(void) {
    CHECK_OK(ctx, mg_context_finish(ctx));
    CHECK(mg_context_finish(NULL) == MG_INVALID_ARGUMENT);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    test_by_hand();
    test_random();
    test_alpha_beta();
    test_bfs_levels();
    test_bad_arguments();
    test_verifier_and_failures();
    test_finish();
    mg_context_free(&ctx);
    return check_report();
}
