/*
 * test_spgemm.c — mg_spgemm and mg_check_spgemm on the CPU: products worked out by hand (every
 * semiring, an empty row and column, a rectangular shape, an entry summing to zero kept); a dense
 * row and a dense column against the test's own dense triple loop; masks and complements against
 * filtering the unmasked product; the value type rule and float arithmetic; generated A*A on 1, 2
 * and 3 threads (identical C) against the verifier; rows shaped for each accumulator path (hash,
 * sorted dense window, scanned dense window); every bad argument; the verifier rejecting a
 * wrong value, a missing and an extra entry; allocation failures.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

static const mg_semiring semirings[] = {MG_SEMIRING_PLUS_TIMES, MG_SEMIRING_MIN_PLUS,
                                        MG_SEMIRING_MAX_TIMES, MG_SEMIRING_OR_AND};

/* A matrix from coordinates, values given as doubles and stored as `type`. */
static mg_matrix from_coo(uint32_t rows, uint32_t cols, uint64_t nnz, const uint32_t *r,
                          const uint32_t *c, const double *v, mg_values type) {
    mg_matrix A = NULL;
    float *f = malloc((nnz ? nnz : 1) * sizeof *f);
    for (uint64_t k = 0; k < nnz && v != NULL; k++) f[k] = (float)v[k];
    const void *vals = type == MG_VALUES_FLOAT ? (const void *)f
                       : type == MG_VALUES_DOUBLE ? (const void *)v
                                                  : NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, rows, cols, nnz, r, c, vals, type));
    free(f);
    return A;
}

/* C's entry e as a double (1 for a pattern). */
static double value_at(const mg_matrix C, uint64_t e) {
    const void *v;
    mg_matrix_csr(C, NULL, NULL, &v);
    return mg_matrix_values(C) == MG_VALUES_DOUBLE  ? ((const double *)v)[e]
           : mg_matrix_values(C) == MG_VALUES_FLOAT ? ((const float *)v)[e]
                                                    : 1.0;
}

/* C(i, j), or NAN when C does not store it. */
static double entry(const mg_matrix C, uint32_t i, uint32_t j) {
    const uint64_t *off;
    const uint32_t *idx;
    mg_matrix_csr(C, &off, &idx, NULL);
    for (uint64_t e = off[i]; e < off[i + 1]; e++)
        if (idx[e] == j) return value_at(C, e);
    return NAN;
}

/* Whether two matrices are bit for bit the same (shape, type, pattern, values). */
static bool same(const mg_matrix X, const mg_matrix Y) {
    if (mg_matrix_rows(X) != mg_matrix_rows(Y) || mg_matrix_cols(X) != mg_matrix_cols(Y) ||
        mg_matrix_nnz(X) != mg_matrix_nnz(Y) || mg_matrix_values(X) != mg_matrix_values(Y))
        return false;
    const uint64_t *xo, *yo;
    const uint32_t *xi, *yi;
    const void *xv, *yv;
    mg_matrix_csr(X, &xo, &xi, &xv);
    mg_matrix_csr(Y, &yo, &yi, &yv);
    const uint64_t nnz = mg_matrix_nnz(X);
    const size_t vs = mg_matrix_values(X) == MG_VALUES_DOUBLE ? 8
                      : mg_matrix_values(X) == MG_VALUES_FLOAT ? 4
                                                               : 0;
    return memcmp(xo, yo, (mg_matrix_rows(X) + 1) * sizeof *xo) == 0 &&
           (nnz == 0 || memcmp(xi, yi, nnz * sizeof *xi) == 0) &&
           (vs == 0 || nnz == 0 || memcmp(xv, yv, nnz * vs) == 0);
}

/* A random rows x cols matrix with about density * rows * cols entries, values in [-2, 2). */
static mg_matrix random_matrix(uint32_t rows, uint32_t cols, double density, unsigned seed,
                               mg_values type) {
    srand(seed);
    const uint64_t cap = (uint64_t)rows * cols;
    uint32_t *r = malloc((cap ? cap : 1) * sizeof *r), *c = malloc((cap ? cap : 1) * sizeof *c);
    double *v = malloc((cap ? cap : 1) * sizeof *v);
    uint64_t n = 0;
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols; j++)
            if (rand() < density * RAND_MAX) {
                r[n] = i;
                c[n] = j;
                v[n++] = (rand() % 64 - 32) / 16.0;
            }
    mg_matrix A = from_coo(rows, cols, n, r, c, v, type);
    free(r);
    free(c);
    free(v);
    return A;
}

static mg_matrix product(const mg_matrix A, const mg_matrix B, mg_semiring s, const mg_matrix M,
                         bool complement) {
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    o.semiring = s;
    o.mask = M;
    o.complement = complement;
    mg_matrix C = NULL;
    CHECK_OK(ctx, mg_spgemm(ctx, A, B, &C, &o));
    if (C != NULL) CHECK_OK(ctx, mg_check_spgemm(ctx, A, B, C, &o));
    return C;
}

static void test_by_hand(void) {
    /* A 3 x 4 (row 1 empty), B 4 x 3 (column 1 empty): C 3 x 3 with row 1 and column 1 empty */
    const uint32_t ar[] = {0, 0, 2, 2}, ac[] = {0, 2, 1, 3};
    const double av[] = {1, 2, 3, 4};
    const uint32_t br[] = {0, 0, 1, 2, 3}, bc[] = {0, 2, 0, 2, 0};
    const double bv[] = {1, 2, 5, 6, 7};
    mg_matrix A = from_coo(3, 4, 4, ar, ac, av, MG_VALUES_DOUBLE);
    mg_matrix B = from_coo(4, 3, 5, br, bc, bv, MG_VALUES_DOUBLE);
    /* C(0,0), C(0,2), C(2,0) per semiring */
    const double want[4][3] = {{1, 14, 43}, {2, 3, 8}, {1, 12, 28}, {1, 1, 1}};
    for (int s = 0; s < 4; s++) {
        mg_matrix C = product(A, B, semirings[s], NULL, false);
        CHECK(mg_matrix_rows(C) == 3 && mg_matrix_cols(C) == 3 && mg_matrix_nnz(C) == 3);
        CHECK(mg_matrix_values(C) == MG_VALUES_DOUBLE);
        CHECK(entry(C, 0, 0) == want[s][0]);
        CHECK(entry(C, 0, 2) == want[s][1]);
        CHECK(entry(C, 2, 0) == want[s][2]);
        CHECK(isnan(entry(C, 0, 1)) && isnan(entry(C, 1, 0)) && isnan(entry(C, 2, 1)));
        mg_matrix_free(&C);
    }
    /* a sum that is zero stays stored: it was computed */
    const uint32_t zr[] = {0, 0}, zc[] = {0, 1}, yr[] = {0, 1}, yc[] = {0, 0};
    const double zv[] = {1, -1}, yv[] = {1, 1};
    mg_matrix Z = from_coo(1, 2, 2, zr, zc, zv, MG_VALUES_DOUBLE);
    mg_matrix Y = from_coo(2, 1, 2, yr, yc, yv, MG_VALUES_DOUBLE);
    mg_matrix C = product(Z, Y, MG_SEMIRING_PLUS_TIMES, NULL, false);
    CHECK(mg_matrix_nnz(C) == 1 && entry(C, 0, 0) == 0);
    mg_matrix_free(&C);
    /* an empty product: A 3 x 4 times an empty 4 x 5 */
    mg_matrix E = from_coo(4, 5, 0, NULL, NULL, NULL, MG_VALUES_DOUBLE);
    C = product(A, E, MG_SEMIRING_PLUS_TIMES, NULL, false);
    CHECK(mg_matrix_rows(C) == 3 && mg_matrix_cols(C) == 5 && mg_matrix_nnz(C) == 0);
    mg_matrix *all[] = {&A, &B, &Z, &Y, &E, &C};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) mg_matrix_free(all[i]);
}

/* A dense row and a dense column (the dense accumulator, and hashed rows beside it), against a
 * dense triple loop in the test. */
static void test_dense_row_and_column(void) {
    enum { N = 60, K = 45 };
    uint32_t r[N * 2 + K * 2], c[N * 2 + K * 2];
    double v[N * 2 + K * 2];
    uint64_t n = 0;
    for (uint32_t j = 0; j < K; j++) { r[n] = 0; c[n] = j; v[n++] = 1 + j % 5; }       /* row 0 */
    for (uint32_t i = 1; i < N; i++) { r[n] = i; c[n] = 0; v[n++] = 2 - (double)(i % 3); } /* col 0 */
    for (uint32_t i = 1; i < N; i++) { r[n] = i; c[n] = (i * 7) % K; v[n++] = 0.5 * i; }
    mg_matrix A = from_coo(N, K, n, r, c, v, MG_VALUES_DOUBLE);
    mg_matrix B = random_matrix(K, N, 0.1, 7, MG_VALUES_DOUBLE);
    mg_matrix C = product(A, B, MG_SEMIRING_PLUS_TIMES, NULL, false);
    double *a = calloc((size_t)N * K, sizeof *a), *b = calloc((size_t)K * N, sizeof *b);
    bool *bz = calloc((size_t)K * N, sizeof *bz), *az = calloc((size_t)N * K, sizeof *az);
    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    mg_matrix_csr(A, &off, &idx, &vals);
    for (uint32_t i = 0; i < N; i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            a[i * K + idx[e]] = ((const double *)vals)[e];
            az[i * K + idx[e]] = true;
        }
    mg_matrix_csr(B, &off, &idx, &vals);
    for (uint32_t i = 0; i < K; i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            b[i * N + idx[e]] = ((const double *)vals)[e];
            bz[i * N + idx[e]] = true;
        }
    uint64_t nnz = 0;
    int ok = 1;
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < N; j++) {
            double s = 0;
            bool any = false;
            for (uint32_t k = 0; k < K; k++)
                if (az[i * K + k] && bz[k * N + j]) {
                    s += a[i * K + k] * b[k * N + j];
                    any = true;
                }
            const double got = entry(C, i, j);
            if (any) {
                nnz++;
                ok &= fabs(got - s) <= 1e-12 * (1 + fabs(s));
            } else {
                ok &= isnan(got);
            }
        }
    CHECK(ok);
    CHECK(mg_matrix_nnz(C) == nnz);
    free(a);
    free(b);
    free(az);
    free(bz);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    mg_matrix_free(&C);
}

/* C<M> and C<!M> hold exactly the entries of the unmasked C that M has (has not), bit for bit. */
static void test_masks(void) {
    for (int dense = 0; dense < 2; dense++) {
        /* dense: rows wide enough for the dense accumulator; else sparse rows (hash tables) */
        const double density = dense ? 0.3 : 0.02;
        mg_matrix A = random_matrix(70, 90, density, 11, MG_VALUES_DOUBLE);
        mg_matrix B = random_matrix(90, 400, density, 12, MG_VALUES_DOUBLE);
        mg_matrix M = random_matrix(70, 400, dense ? 0.2 : 0.01, 13, MG_VALUES_NONE);
        for (int s = 0; s < 4; s++) {
            mg_matrix full = product(A, B, semirings[s], NULL, false);
            for (int comp = 0; comp < 2; comp++) {
                mg_matrix C = product(A, B, semirings[s], M, comp);
                const uint64_t *fo, *mo;
                const uint32_t *fi, *mi;
                mg_matrix_csr(full, &fo, &fi, NULL);
                mg_matrix_csr(M, &mo, &mi, NULL);
                uint64_t kept = 0;
                int ok = 1;
                for (uint32_t i = 0; i < 70; i++)
                    for (uint64_t e = fo[i]; e < fo[i + 1]; e++) {
                        bool in = false;
                        for (uint64_t f = mo[i]; f < mo[i + 1]; f++) in |= mi[f] == fi[e];
                        const double got = entry(C, i, fi[e]);
                        if (in != (bool)comp) {
                            kept++;
                            ok &= got == value_at(full, e);
                        } else {
                            ok &= isnan(got);
                        }
                    }
                CHECK(ok && kept == mg_matrix_nnz(C) && kept > 0);
                mg_matrix_free(&C);
            }
            mg_matrix_free(&full);
        }
        /* an empty mask: nothing, or (complement) everything */
        mg_matrix none = from_coo(70, 400, 0, NULL, NULL, NULL, MG_VALUES_NONE);
        mg_matrix C = product(A, B, MG_SEMIRING_PLUS_TIMES, none, false);
        CHECK(mg_matrix_nnz(C) == 0);
        mg_matrix_free(&C);
        mg_matrix full = product(A, B, MG_SEMIRING_PLUS_TIMES, NULL, false);
        C = product(A, B, MG_SEMIRING_PLUS_TIMES, none, true);
        CHECK(same(C, full));
        mg_matrix *all[] = {&A, &B, &M, &none, &C, &full};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) mg_matrix_free(all[i]);
    }
}

static void test_value_types(void) {
    const mg_values kinds[] = {MG_VALUES_NONE, MG_VALUES_FLOAT, MG_VALUES_DOUBLE};
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            for (int s = 0; s < 4; s++) {
                mg_matrix A = random_matrix(20, 30, 0.2, 21, kinds[x]);
                mg_matrix B = random_matrix(30, 25, 0.2, 22, kinds[y]);
                mg_matrix C = product(A, B, semirings[s], NULL, false);
                const mg_values want =
                    semirings[s] == MG_SEMIRING_OR_AND && x == 0 && y == 0 ? MG_VALUES_NONE
                    : x == 1 && y == 1                                    ? MG_VALUES_FLOAT
                                                                          : MG_VALUES_DOUBLE;
                CHECK(mg_matrix_values(C) == want);
                mg_matrix_free(&A);
                mg_matrix_free(&B);
                mg_matrix_free(&C);
            }
    /* two patterns under plus-times count the paths */
    const uint32_t r[] = {0, 0, 1, 2}, c[] = {1, 2, 0, 0};
    mg_matrix P = from_coo(3, 3, 4, r, c, NULL, MG_VALUES_NONE);
    mg_matrix C = product(P, P, MG_SEMIRING_PLUS_TIMES, NULL, false);
    CHECK(entry(C, 0, 0) == 2 && entry(C, 1, 1) == 1 && entry(C, 1, 2) == 1);
    mg_matrix_free(&C);
    mg_matrix_free(&P);
    /* float arithmetic in float: 1 + 3e-8 + 3e-8 stays 1 (in double, rounded once, it would not) */
    const uint32_t ar[] = {0, 0, 0}, ac[] = {0, 1, 2}, br[] = {0, 1, 2}, bc[] = {0, 0, 0};
    const double ones[] = {1, 1, 1}, small[] = {1, 3e-8, 3e-8};
    mg_matrix A = from_coo(1, 3, 3, ar, ac, ones, MG_VALUES_FLOAT);
    mg_matrix B = from_coo(3, 1, 3, br, bc, small, MG_VALUES_FLOAT);
    C = product(A, B, MG_SEMIRING_PLUS_TIMES, NULL, false);
    CHECK(mg_matrix_values(C) == MG_VALUES_FLOAT && entry(C, 0, 0) == 1.0);
    mg_matrix_free(&C);
    mg_matrix Bd = from_coo(3, 1, 3, br, bc, small, MG_VALUES_DOUBLE);
    C = product(A, Bd, MG_SEMIRING_PLUS_TIMES, NULL, false);
    CHECK(mg_matrix_values(C) == MG_VALUES_DOUBLE && entry(C, 0, 0) > 1.0);
    mg_matrix_free(&C);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    mg_matrix_free(&Bd);
}

/* Generated A*A (and with a mask) on 1, 2 and 3 threads: the verifier passes and C is the same. */
/* A float product past FLT_MAX is inf, as the float arithmetic makes it, and the verifier takes
 * it (it compared inf with the double reference 2e40 and refused it). */
static void test_float_overflow(void) {
    const uint32_t r[] = {0, 0, 1}, c[] = {0, 1, 1};
    const double v[] = {1e20, 1e20, 1};
    mg_matrix A = from_coo(2, 2, 3, r, c, v, MG_VALUES_FLOAT), C = NULL;
    CHECK_OK(ctx, mg_spgemm(ctx, A, A, &C, NULL));
    if (C != NULL) {
        CHECK(isinf(value_at(C, 0)) && isinf(value_at(C, 1)));
        CHECK_OK(ctx, mg_check_spgemm(ctx, A, A, C, NULL));
    }
    mg_matrix_free(&C);
    mg_matrix_free(&A);
}

static void test_generated_threads(void) {
    const mg_matrix_generator kinds[] = {MG_MATGEN_RMAT, MG_MATGEN_UNIFORM, MG_MATGEN_POISSON2D};
    const int saved = omp_get_max_threads();
    for (int k = 0; k < 3; k++)
        for (int single = 0; single < 2; single++) {
            mg_matrix_gen_options g;
            mg_matrix_gen_options_init(&g);
            g.kind = kinds[k];
            g.scale = 11;
            g.nnz_per_row = 8;
            g.rows = g.cols = 3000;
            g.side = 60;
            g.values = single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
            mg_matrix A = NULL;
            CHECK_OK(ctx, mg_matrix_generate(ctx, &A, &g));
            for (int s = 0; s < 4; s += 1 + (k > 0)) {
                mg_matrix first = NULL;
                for (int threads = 1; threads <= 3; threads++) {
                    omp_set_num_threads(threads);
                    mg_matrix C = product(A, A, semirings[s], threads == 3 ? A : NULL, false);
                    if (threads == 3) {
                        mg_matrix_free(&C);
                        continue;
                    }
                    if (first == NULL) first = C;
                    else {
                        CHECK(same(first, C));
                        mg_matrix_free(&C);
                    }
                }
                mg_matrix_free(&first);
            }
            /* the same with threads over a masked product */
            mg_matrix masked[3] = {NULL, NULL, NULL};
            for (int threads = 1; threads <= 3; threads++) {
                omp_set_num_threads(threads);
                masked[threads - 1] = product(A, A, MG_SEMIRING_PLUS_TIMES, A, threads == 2);
            }
            omp_set_num_threads(saved);
            mg_matrix again = product(A, A, MG_SEMIRING_PLUS_TIMES, A, false);
            CHECK(same(masked[0], masked[2]) && same(masked[0], again));
            for (int t = 0; t < 3; t++) mg_matrix_free(&masked[t]);
            mg_matrix_free(&again);
            mg_matrix_free(&A);
        }
    omp_set_num_threads(saved);
}

static void expect_error(mg_status got, mg_status want, const char *needle, mg_matrix C) {
    CHECK(got == want);
    CHECK(C == NULL);
    if (strstr(mg_context_error(ctx), needle) == NULL) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", mg_context_error(ctx), needle);
        CHECK(0);
    }
}

static void test_bad_arguments(void) {
    mg_matrix A = random_matrix(4, 5, 0.5, 31, MG_VALUES_DOUBLE);
    mg_matrix B = random_matrix(7, 3, 0.5, 32, MG_VALUES_DOUBLE);
    mg_matrix B5 = random_matrix(5, 3, 0.5, 33, MG_VALUES_DOUBLE);
    mg_matrix M = random_matrix(4, 4, 0.5, 34, MG_VALUES_NONE);
    struct mg_matrix_s dead;
    memset(&dead, 0, sizeof dead);
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    mg_matrix sentinel = A, C = sentinel;
    mg_status st;
    st = mg_spgemm(ctx, NULL, B5, &C, NULL);
    expect_error(st, MG_INVALID_ARGUMENT, "mg_spgemm: A is NULL", C);
    C = sentinel;
    st = mg_spgemm(ctx, A, &dead, &C, NULL);
    expect_error(st, MG_INVALID_OBJECT, "mg_spgemm: B is not a live mg_matrix", C);
    C = sentinel;
    st = mg_spgemm(ctx, A, B, &C, NULL);
    expect_error(st, MG_INVALID_ARGUMENT, "mg_spgemm: A has 5 columns but B has 7 rows", C);
    o.mask = M;
    C = sentinel;
    st = mg_spgemm(ctx, A, B5, &C, &o);
    expect_error(st, MG_INVALID_ARGUMENT, "mg_spgemm: opts->mask is 4 x 4 but C = A B is 4 x 3", C);
    o.mask = &dead;
    C = sentinel;
    st = mg_spgemm(ctx, A, B5, &C, &o);
    expect_error(st, MG_INVALID_OBJECT, "mg_spgemm: opts->mask", C);
    o.mask = NULL;
    o.semiring = (mg_semiring)9;
    C = sentinel;
    st = mg_spgemm(ctx, A, B5, &C, &o);
    expect_error(st, MG_INVALID_ARGUMENT, "mg_spgemm: opts->semiring = 9", C);
    CHECK(mg_spgemm(ctx, A, B5, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_spgemm: C is NULL") != NULL);
    CHECK(mg_spgemm(NULL, A, B5, &C, NULL) != MG_SUCCESS);
    /* the verifier checks the same arguments, and C's shape */
    o.semiring = MG_SEMIRING_PLUS_TIMES;
    CHECK(mg_check_spgemm(ctx, A, B, A, &o) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_check_spgemm: A has 5 columns but B has 7 rows"));
    CHECK(mg_check_spgemm(ctx, A, B5, A, &o) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_check_spgemm: C is 4 x 5 but A B is 4 x 3"));
    /* a GPU context (where the build can make one) checks the same arguments, then computes the
     * product (tests/gpu/test_gpu_spgemm.c tests it in full) */
    mg_context gctx = NULL;
    CHECK_OK(ctx, mg_context_create(&gctx));
    if (mg_context_set_backend(gctx, MG_BACKEND_GPU) == MG_SUCCESS) {
        C = sentinel;
        CHECK(mg_spgemm(gctx, A, B, &C, NULL) == MG_INVALID_ARGUMENT && C == NULL);
        CHECK(strstr(mg_context_error(gctx), "mg_spgemm: A has 5 columns but B has 7 rows") != NULL);
        CHECK_OK(gctx, mg_spgemm(gctx, A, B5, &C, NULL));
        CHECK(C != NULL && C != sentinel);
        if (C != NULL && C != sentinel) {
            CHECK_OK(ctx, mg_check_spgemm(ctx, A, B5, C, NULL));
            mg_matrix_free(&C);
        }
    }
    mg_context_free(&gctx);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    mg_matrix_free(&B5);
    mg_matrix_free(&M);
}

static void test_verifier_rejects(void) {
    mg_matrix A = random_matrix(30, 40, 0.2, 41, MG_VALUES_DOUBLE);
    mg_matrix B = random_matrix(40, 20, 0.2, 42, MG_VALUES_DOUBLE);
    mg_matrix C = product(A, B, MG_SEMIRING_PLUS_TIMES, NULL, false);
    CHECK(mg_matrix_nnz(C) > 2);
    /* a wrong value */
    double *v = C->csr.weights;
    const double saved = v[1];
    v[1] += 1e-6;
    CHECK(mg_check_spgemm(ctx, A, B, C, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "but the serial plus-times product gives") != NULL);
    v[1] = saved;
    CHECK_OK(ctx, mg_check_spgemm(ctx, A, B, C, NULL));
    /* a missing entry and an extra one: C's coordinates without its entry 1, or with one more */
    const uint64_t nnz = mg_matrix_nnz(C);
    uint32_t *r = malloc((nnz + 1) * sizeof *r), *c = malloc((nnz + 1) * sizeof *c);
    double *w = malloc((nnz + 1) * sizeof *w);
    const uint64_t *off;
    const uint32_t *idx;
    mg_matrix_csr(C, &off, &idx, NULL);
    uint64_t n = 0, first_row = 0;
    for (uint32_t i = 0; i < 30; i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            if (e == 1) {
                first_row = i;
                continue;
            }
            r[n] = i;
            c[n] = idx[e];
            w[n++] = v[e];
        }
    mg_matrix lacking = from_coo(30, 20, n, r, c, w, MG_VALUES_DOUBLE);
    CHECK(mg_check_spgemm(ctx, A, B, lacking, NULL) == MG_INVALID_ARGUMENT);
    char needle[96];
    snprintf(needle, sizeof needle, "C lacks the entry (%u, %u)", (unsigned)first_row, idx[1]);
    CHECK(strstr(mg_context_error(ctx), needle) != NULL);
    /* put entry 1 back and add one the product lacks (a column missing from the row) */
    r[n] = (uint32_t)first_row;
    c[n] = idx[1];
    w[n++] = v[1];
    uint32_t extra = 0;
    while (!isnan(entry(C, 0, extra))) extra++;
    r[n] = 0;
    c[n] = extra;
    w[n++] = 1;
    mg_matrix more = from_coo(30, 20, n, r, c, w, MG_VALUES_DOUBLE);
    CHECK(mg_check_spgemm(ctx, A, B, more, NULL) == MG_INVALID_ARGUMENT);
    snprintf(needle, sizeof needle, "C has the entry (0, %u)", extra);
    CHECK(strstr(mg_context_error(ctx), needle) != NULL);
    /* a C of the wrong value type: or-and of two patterns is a pattern */
    mg_matrix P = random_matrix(30, 40, 0.2, 41, MG_VALUES_NONE);
    mg_matrix Q = random_matrix(40, 20, 0.2, 42, MG_VALUES_NONE);
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    o.semiring = MG_SEMIRING_OR_AND;
    CHECK(mg_check_spgemm(ctx, P, Q, C, &o) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "C's value type") != NULL);
    mg_matrix_free(&P);
    mg_matrix_free(&Q);
    free(r);
    free(c);
    free(w);
    mg_matrix *all[] = {&A, &B, &C, &lacking, &more};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) mg_matrix_free(all[i]);
}

/* Rows shaped for each accumulator path, every semiring, unmasked, masked and complemented, on 1
 * and 2 threads (identical C), against the verifier: B 64 x 200000 with rows spread over all
 * columns (a hash table, rows longer and shorter than the sort's insertion cut-off), B 64 x 30000
 * (a dense window too sparse to scan: its hits are sorted, also past the cut-off), B 64 x 3000
 * (a window read off its stamps). */
static void test_accumulator_paths(void) {
    const uint32_t widths[] = {200000, 30000, 3000};
    const double per_row[] = {12, 3, 40};
    const int saved = omp_get_max_threads();
    for (int w = 0; w < 3; w++) {
        mg_matrix A = random_matrix(64, 64, 0.15, 61 + w, MG_VALUES_DOUBLE);
        mg_matrix B = random_matrix(64, widths[w], per_row[w] / widths[w], 71 + w,
                                    w == 1 ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE);
        mg_matrix M = random_matrix(64, widths[w], 4 * per_row[w] / widths[w], 81 + w,
                                    MG_VALUES_NONE);
        for (int s = 0; s < 4; s++)
            for (int mask = 0; mask < 3; mask++) {
                mg_matrix C[2] = {NULL, NULL};
                for (int threads = 1; threads <= 2; threads++) {
                    omp_set_num_threads(threads);
                    C[threads - 1] = product(A, B, semirings[s], mask ? M : NULL, mask == 2);
                }
                CHECK(same(C[0], C[1]));
                uint64_t longest = 0;
                const uint64_t *off;
                mg_matrix_csr(C[0], &off, NULL, NULL);
                for (uint32_t i = 0; i < 64; i++)
                    if (off[i + 1] - off[i] > longest) longest = off[i + 1] - off[i];
                CHECK(mask == 1 || longest > 32);
                mg_matrix_free(&C[0]);
                mg_matrix_free(&C[1]);
            }
        mg_matrix_free(&A);
        mg_matrix_free(&B);
        mg_matrix_free(&M);
    }
    omp_set_num_threads(saved);
}

/* Every allocation failing in turn fails cleanly: MG_OUT_OF_MEMORY, *C NULL, nothing leaked. */
static void test_allocation_failures(void) {
    mg_matrix A = random_matrix(50, 60, 0.2, 51, MG_VALUES_DOUBLE);
    mg_matrix B = random_matrix(60, 500, 0.2, 52, MG_VALUES_DOUBLE);
    mg_matrix M = random_matrix(50, 500, 0.1, 53, MG_VALUES_NONE);
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    o.mask = M;
    int failures = 0, clean = 1, named_bytes = 0;
    for (int masked = 0; masked < 2; masked++)
        for (uint64_t k = 1; k < 64; k++) {
            mg_matrix C = A;
            mg__inject_alloc_failure(k);
            mg_status st = mg_spgemm(ctx, A, B, &C, masked ? &o : NULL);
            mg__inject_alloc_failure(0);
            if (st == MG_SUCCESS) {
                mg_matrix_free(&C);
                break;
            }
            failures++;
            clean &= st == MG_OUT_OF_MEMORY && C == NULL;
            named_bytes |= strstr(mg_context_error(ctx), "bytes") != NULL;
        }
    CHECK(failures >= 8 && clean && named_bytes);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    mg_matrix_free(&M);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    test_by_hand();
    test_dense_row_and_column();
    test_masks();
    test_value_types();
    test_float_overflow();
    test_generated_threads();
    test_accumulator_paths();
    test_bad_arguments();
    test_verifier_rejects();
    test_allocation_failures();
    mg_context_free(&ctx);
    return check_report();
}
