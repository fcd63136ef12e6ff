/*
 * test_spmm.c — mg_spmm, mg_sddmm and mg_matrix_with_values on the CPU: small rectangular cases
 * with an empty row and column worked out by hand (every type, value kind, transpose, alpha/beta);
 * random matrices with a dense row for K = 1, 2, 7, 32, 33, 130 against mg_check_spmm and against
 * K SpMVs column by column, on 1 to 3 threads (the dense row split between threads); a matrix whose
 * one non-empty row spans every thread; beta 0 with NaN in C; an empty matrix; SDDMM against the
 * test's own dot products; every bad argument, with C left as it was; the verifiers catching a
 * wrong entry; allocation failures; an SDDMM result as a matrix written and read back.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "temp_dir.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <string.h>

static mg_context ctx;

static const mg_values value_kinds[] = {MG_VALUES_NONE, MG_VALUES_FLOAT, MG_VALUES_DOUBLE};
static const mg_type types[] = {MG_FLOAT, MG_DOUBLE};

/* rows x cols of `type` holding v (row-major doubles, converted), zeros when v is NULL. */
static mg_dense dense(mg_type type, uint32_t rows, uint32_t cols, const double *v) {
    mg_dense X = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &X, rows, cols, type));
    if (v == NULL) return X;
    const size_t n = (size_t)rows * cols;
    float *f = malloc((n ? n : 1) * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = (float)v[i];
    CHECK_OK(ctx, mg_dense_load(ctx, X, type == MG_FLOAT ? (const void *)f : (const void *)v));
    free(f);
    return X;
}

/* X's values as doubles (malloc'ed). */
static double *values_of(const mg_dense X) {
    const size_t n = (size_t)mg_dense_rows(X) * mg_dense_cols(X);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (mg_dense_type(X) == MG_FLOAT) {
        float *f = malloc((n ? n : 1) * sizeof *f);
        CHECK_OK(ctx, mg_dense_extract(ctx, X, f));
        for (size_t i = 0; i < n; i++) v[i] = f[i];
        free(f);
    } else {
        CHECK_OK(ctx, mg_dense_extract(ctx, X, v));
    }
    return v;
}

static double at(const mg_dense X, uint32_t i, uint32_t k) {
    double v = NAN;
    CHECK_OK(ctx, mg_dense_get(ctx, X, i, k, &v));
    return v;
}

/* A from coordinates with double values given, stored as `kind`. */
static mg_matrix from_coo(uint32_t rows, uint32_t cols, uint64_t nnz, const uint32_t *r,
                          const uint32_t *c, const double *v, mg_values kind) {
    mg_matrix A = NULL;
    float *f = malloc((nnz ? nnz : 1) * sizeof *f);
    for (uint64_t k = 0; k < nnz; k++) f[k] = (float)v[k];
    const void *values = kind == MG_VALUES_DOUBLE  ? (const void *)v
                         : kind == MG_VALUES_FLOAT ? (const void *)f
                                                   : NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, rows, cols, nnz, r, c, values, kind));
    free(f);
    return A;
}

/* ---- by hand ----------------------------------------------------------------------------------- */

/* A = [ 2 0 0 -1 ]   B = [ 1    2 ]   A B = [ 0    4 ]   B' = [  1 0 ]   A^T B' = [ -6 12 ]
 *     [ 0 0 0  0 ]       [ 3    4 ]         [ 0    0 ]        [  5 1 ]            [  0  0 ]
 *     [ 4 0 3  0 ]       [ 0.5 -1 ]         [ 5.5  5 ]        [ -2 3 ]            [ -6  9 ]
 *                        [ 2    0 ]                                               [ -1  0 ]
 * Row 1 and column 1 are empty. Pattern A: A B = [3 2; 0 0; 1.5 1], A^T B' = [-1 3; 0 0; -2 3;
 * 1 0]. SDDMM on A's pattern with X = [1 2; 0 1; 3 -1] and B: entries (0,0) (0,3) (2,0) (2,2) get
 * A's value times X_i . B_j = 2*5, -1*2, 4*1, 3*2.5 = 10, -2, 4, 7.5. */
static const uint32_t hr[] = {0, 0, 2, 2}, hc[] = {0, 3, 0, 2};
static const double hv[] = {2, -1, 4, 3};
static const double hb[] = {1, 2, 3, 4, 0.5, -1, 2, 0}, hbt[] = {1, 0, 5, 1, -2, 3};
static const double hx[] = {1, 2, 0, 1, 3, -1};

static void expect_equal(const mg_dense C, const double *want, uint32_t n) {
    double *got = values_of(C);
    int off = 0;
    for (uint32_t i = 0; i < n; i++) off += got[i] != want[i];
    CHECK(off == 0);
    free(got);
}

static void test_by_hand(void) {
    const double want[] = {0, 4, 0, 0, 5.5, 5}, want_t[] = {-6, 12, 0, 0, -6, 9, -1, 0};
    const double want_p[] = {3, 2, 0, 0, 1.5, 1}, want_pt[] = {-1, 3, 0, 0, -2, 3, 1, 0};
    const double want_s[] = {10, -2, 4, 7.5}, want_sp[] = {5, 2, 1, 2.5};
    for (int ti = 0; ti < 2; ti++)
        for (int vk = 0; vk < 3; vk++) {
            mg_matrix A = from_coo(3, 4, 4, hr, hc, hv, value_kinds[vk]);
            const bool pattern = vk == 0;
            mg_spmm_options o;
            mg_spmm_options_init(&o);
            mg_dense B = dense(types[ti], 4, 2, hb), C = dense(types[ti], 3, 2, NULL);
            CHECK_OK(ctx, mg_spmm(ctx, A, B, C, &o));
            expect_equal(C, pattern ? want_p : want, 6);
            CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, &o));
            /* alpha 2, beta -1 over the result: 2 AB - AB = AB */
            mg_dense C_in = dense(types[ti], 3, 2, pattern ? want_p : want);
            o.alpha = 2;
            o.beta = -1;
            CHECK_OK(ctx, mg_spmm(ctx, A, B, C, &o));
            expect_equal(C, pattern ? want_p : want, 6);
            CHECK_OK(ctx, mg_check_spmm(ctx, A, B, C_in, C, &o));
            mg_dense Bt = dense(types[ti], 3, 2, hbt), Ct = dense(types[ti], 4, 2, NULL);
            mg_spmm_options_init(&o);
            o.transpose = true;
            CHECK_OK(ctx, mg_spmm(ctx, A, Bt, Ct, &o));
            expect_equal(Ct, pattern ? want_pt : want_t, 8);
            CHECK_OK(ctx, mg_check_spmm(ctx, A, Bt, NULL, Ct, &o));

            mg_dense X = dense(types[ti], 3, 2, hx), S = dense(types[ti], 4, 1, NULL);
            CHECK_OK(ctx, mg_sddmm(ctx, A, X, B, S, NULL));
            expect_equal(S, pattern ? want_sp : want_s, 4);
            CHECK_OK(ctx, mg_check_sddmm(ctx, A, X, B, NULL, S, NULL));
            /* alpha 2, beta 1 on C_in = 1 */
            mg_sddmm_options so;
            mg_sddmm_options_init(&so);
            CHECK(so.alpha == 1 && so.beta == 0);
            so.alpha = 2;
            so.beta = 1;
            const double ones[] = {1, 1, 1, 1};
            mg_dense S_in = dense(types[ti], 4, 1, ones);
            CHECK_OK(ctx, mg_dense_fill(ctx, S, 1));
            CHECK_OK(ctx, mg_sddmm(ctx, A, X, B, S, &so));
            double w2[4];
            for (int e = 0; e < 4; e++) w2[e] = 2 * (pattern ? want_sp : want_s)[e] + 1;
            expect_equal(S, w2, 4);
            CHECK_OK(ctx, mg_check_sddmm(ctx, A, X, B, S_in, S, &so));
            mg_dense_free(&S_in);
            mg_dense_free(&X);
            mg_dense_free(&S);
            mg_dense_free(&B);
            mg_dense_free(&C);
            mg_dense_free(&C_in);
            mg_dense_free(&Bt);
            mg_dense_free(&Ct);
            mg_matrix_free(&A);
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

static double random_value(void) {
    return next_rand() % 8 == 0 ? 0.0 : (double)(next_rand() % 4096) / 1024.0 - 2.0;
}

typedef struct {
    uint32_t rows, cols;
    uint64_t nnz;
    uint32_t *r, *c;
    double *v;
} coo_list;

/* rows x cols with `per_row` random entries per row on average, every third row empty, row
 * `dense_row` full (none when it is rows or more), the last column empty, values in [-2, 2) with
 * some exact zeros. */
static coo_list random_coo(uint32_t rows, uint32_t cols, uint32_t per_row, uint32_t dense_row) {
    coo_list L = {rows, cols, 0, NULL, NULL, NULL};
    const uint64_t cap = (uint64_t)rows * per_row * 2 + cols + 1;
    L.r = malloc(cap * sizeof *L.r);
    L.c = malloc(cap * sizeof *L.c);
    L.v = malloc(cap * sizeof *L.v);
    for (uint32_t i = 0; i < rows; i++) {
        const bool full = i == dense_row;
        uint32_t k = full ? cols - 1 : i % 3 == 1 ? 0 : (uint32_t)(next_rand() % (2 * per_row + 1));
        for (uint32_t q = 0; q < k; q++) {
            L.r[L.nnz] = i;
            L.c[L.nnz] = full ? q : (uint32_t)(next_rand() % (cols - 1));
            L.v[L.nnz] = random_value();
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

static double *random_values(size_t n) {
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = random_value();
    return v;
}

/* op(A) B column by column with mg_spmv (k SpMVs), in the dense type. */
static double *by_spmv(const mg_matrix A, mg_type type, bool transpose, const double *b,
                       uint32_t in_n, uint32_t out_n, uint32_t K) {
    double *want = malloc((size_t)out_n * K * sizeof *want), *col = malloc(in_n * sizeof *col);
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    o.transpose = transpose;
    mg_dense x = NULL, y = dense(type, out_n, 1, NULL);
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < in_n; i++) col[i] = b[(size_t)i * K + k];
        x = dense(type, in_n, 1, col);
        CHECK_OK(ctx, mg_spmv(ctx, A, x, y, &o));
        double *got = values_of(y);
        for (uint32_t i = 0; i < out_n; i++) want[(size_t)i * K + k] = got[i];
        free(got);
        mg_dense_free(&x);
    }
    mg_dense_free(&y);
    free(col);
    return want;
}

/* sum |a_ij b_jk| for each entry of op(A) B: what a sum's rounding is relative to. */
static double *magnitudes(const mg_matrix A, bool transpose, const double *b, uint32_t out_n,
                          uint32_t K) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &vals));
    double *mag = calloc((size_t)out_n * K + 1, sizeof *mag);
    for (uint32_t i = 0; i < mg_matrix_rows(A); i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            const double a = vals == NULL                                  ? 1.0
                             : mg_matrix_values(A) == MG_VALUES_FLOAT ? ((const float *)vals)[e]
                                                                           : ((const double *)vals)[e];
            const size_t in = transpose ? i : idx[e], out = transpose ? idx[e] : i;
            for (uint32_t k = 0; k < K; k++) mag[out * K + k] += fabs(a * b[in * K + k]);
        }
    return mag;
}

/* How many of got's n values are off want's by more than float or double rounding of sums whose
 * terms' magnitudes add up to mag. */
static int count_off(const double *got, const double *want, const double *mag, size_t n,
                     mg_type type) {
    const double tol = type == MG_FLOAT ? 2e-5 : 1e-12;
    int off = 0;
    for (size_t i = 0; i < n; i++)
        if (!(got[i] == want[i] || fabs(got[i] - want[i]) <= tol * mag[i] + 1e-300)) {
            if (off++ < 3) fprintf(stderr, "entry %zu: %.17g, want %.17g\n", i, got[i], want[i]);
        }
    return off;
}

static const uint32_t ks[] = {1, 2, 7, 32, 33, 130};

static void test_random_spmm(void) {
    const int saved = omp_get_max_threads();
    /* 2000 x 6000, about 3 entries a row and one full row of 5999: about 12000 entries, the full
     * row over a third of them, so 2 or 3 threads split it. */
    coo_list L = random_coo(2000, 6000, 3, 1234);
    int bad = 0;
    for (int vk = 0; vk < 3; vk++) {
        mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, value_kinds[vk]);
        for (int tr = 0; tr < 2; tr++)
            for (int ki = 0; ki < 6; ki++) {
                const uint32_t K = ks[ki];
                const uint32_t in_n = tr ? L.rows : L.cols, out_n = tr ? L.cols : L.rows;
                double *b = random_values((size_t)in_n * K);
                double *mag = magnitudes(A, tr, b, out_n, K);
                for (int ti = 0; ti < 2; ti++) {
                    mg_spmm_options o;
                    mg_spmm_options_init(&o);
                    o.transpose = tr;
                    mg_dense B = dense(types[ti], in_n, K, b), C = dense(types[ti], out_n, K, NULL);
                    double *want = by_spmv(A, types[ti], tr, b, in_n, out_n, K), *one = NULL;
                    for (int threads = 1; threads <= 3; threads++) {
                        omp_set_num_threads(threads);
                        CHECK_OK(ctx, mg_spmm(ctx, A, B, C, &o));
                        CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, &o));
                        double *got = values_of(C);
                        const int off = count_off(got, want, mag, (size_t)out_n * K, types[ti]);
                        /* another thread count differs from one thread by rounding at most */
                        const int moved = one ? count_off(got, one, mag, (size_t)out_n * K, types[ti]) : 0;
                        if (off || moved)
                            fprintf(stderr, "values %d transpose %d K %u type %d threads %d: %d "
                                    "off the SpMVs, %d off one thread\n", vk, tr, K, ti, threads,
                                    off, moved);
                        bad += off + moved;
                        if (one == NULL) one = got;
                        else free(got);
                    }
                    free(one);
                    free(want);
                    mg_dense_free(&B);
                    mg_dense_free(&C);
                }
                free(mag);
                free(b);
            }
        mg_matrix_free(&A);
    }
    CHECK(bad == 0);
    free_coo(&L);
    omp_set_num_threads(saved);
}

/* One full row and nothing else: with 4 threads the row spans every one of them, so its parts are
 * the tails of threads 0..2 and the head of thread 3. */
static void test_single_dense_row(void) {
    const int saved = omp_get_max_threads();
    coo_list L = random_coo(50, 4001, 0, 7);
    for (uint32_t i = 0; i < L.nnz; i++) CHECK(L.r[i] == 7);
    mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_DOUBLE);
    const uint32_t K = 33;
    double *b = random_values((size_t)L.cols * K), *mag = magnitudes(A, false, b, L.rows, K);
    for (int ti = 0; ti < 2; ti++) {
        mg_dense B = dense(types[ti], L.cols, K, b), C = dense(types[ti], L.rows, K, NULL);
        double *want = by_spmv(A, types[ti], false, b, L.cols, L.rows, K);
        for (int threads = 1; threads <= 4; threads++) {
            omp_set_num_threads(threads);
            CHECK_OK(ctx, mg_dense_fill(ctx, C, NAN));
            CHECK_OK(ctx, mg_spmm(ctx, A, B, C, NULL));
            CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, NULL));
            double *got = values_of(C);
            CHECK(count_off(got, want, mag, (size_t)L.rows * K, types[ti]) == 0);
            free(got);
        }
        free(want);
        mg_dense_free(&B);
        mg_dense_free(&C);
    }
    free(b);
    free(mag);
    mg_matrix_free(&A);
    free_coo(&L);
    omp_set_num_threads(saved);
}

/* alpha/beta on a random matrix, beta 0 with NaN in C, and a matrix with no entries. */
static void test_alpha_beta(void) {
    coo_list L = random_coo(600, 500, 6, 9);
    mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_FLOAT);
    const uint32_t K = 33;
    double *b = random_values((size_t)500 * K), *c0 = random_values((size_t)600 * K);
    for (int ti = 0; ti < 2; ti++) {
        mg_dense B = dense(types[ti], 500, K, b), C_in = dense(types[ti], 600, K, c0);
        mg_dense C = dense(types[ti], 600, K, c0);
        double *ab = by_spmv(A, types[ti], false, b, 500, 600, K), *want = malloc(600 * K * sizeof *want);
        double *cin = values_of(C_in);
        double *mag = magnitudes(A, false, b, 600, K);
        for (size_t i = 0; i < (size_t)600 * K; i++) {
            want[i] = 2.5 * ab[i] - 0.5 * cin[i];
            mag[i] = 2.5 * mag[i] + 0.5 * fabs(cin[i]);
        }
        mg_spmm_options o;
        mg_spmm_options_init(&o);
        CHECK(!o.transpose && o.alpha == 1 && o.beta == 0);
        o.alpha = 2.5;
        o.beta = -0.5;
        CHECK_OK(ctx, mg_spmm(ctx, A, B, C, &o));
        CHECK_OK(ctx, mg_check_spmm(ctx, A, B, C_in, C, &o));
        double *got = values_of(C);
        CHECK(count_off(got, want, mag, (size_t)600 * K, types[ti]) == 0);
        free(got);
        /* beta 0 never reads C: NaN there does not spread */
        CHECK_OK(ctx, mg_dense_fill(ctx, C, NAN));
        o.beta = 0;
        CHECK_OK(ctx, mg_spmm(ctx, A, B, C, &o));
        got = values_of(C);
        int nans = 0;
        for (size_t i = 0; i < (size_t)600 * K; i++) nans += isnan(got[i]);
        CHECK(nans == 0);
        free(got);
        CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, &o));
        free(ab);
        free(want);
        free(mag);
        free(cin);
        mg_dense_free(&B);
        mg_dense_free(&C);
        mg_dense_free(&C_in);
    }
    /* no entries: C = beta C */
    mg_matrix E = from_coo(5, 3, 0, NULL, NULL, NULL, MG_VALUES_DOUBLE);
    mg_dense B = dense(MG_DOUBLE, 3, 2, NULL), C = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &C, 5, 2, MG_DOUBLE));
    CHECK_OK(ctx, mg_dense_fill(ctx, C, 4));
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    o.beta = 0.5;
    CHECK_OK(ctx, mg_spmm(ctx, E, B, C, &o));
    CHECK(at(C, 0, 0) == 2 && at(C, 4, 1) == 2);
    mg_dense_free(&B);
    mg_dense_free(&C);
    mg_matrix_free(&E);
    free(b);
    free(c0);
    mg_matrix_free(&A);
    free_coo(&L);
}

/* ---- SDDMM -------------------------------------------------------------------------------------- */

static void test_random_sddmm(void) {
    const int saved = omp_get_max_threads();
    coo_list L = random_coo(1500, 900, 4, 321);
    for (int vk = 0; vk < 3; vk++) {
        mg_matrix S = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, value_kinds[vk]);
        const uint64_t *off;
        const uint32_t *idx;
        const void *vals;
        CHECK_OK(ctx, mg_matrix_csr(S, &off, &idx, &vals));
        const uint64_t nnz = mg_matrix_nnz(S);
        for (int ki = 0; ki < 6; ki++) {
            const uint32_t K = ks[ki];
            double *x = random_values((size_t)L.rows * K), *y = random_values((size_t)L.cols * K);
            double *c0 = random_values(nnz);
            for (int ti = 0; ti < 2; ti++) {
                const bool single = types[ti] == MG_FLOAT;
                mg_dense X = dense(types[ti], L.rows, K, x), Y = dense(types[ti], L.cols, K, y);
                mg_dense C = dense(types[ti], nnz, 1, c0), C_in = dense(types[ti], nnz, 1, c0);
                /* the test's own serial SDDMM, in double on the type's values */
                double *xv = values_of(X), *yv = values_of(Y), *cin = values_of(C_in);
                double *want = malloc(nnz * sizeof *want), *mag = malloc(nnz * sizeof *mag);
                for (uint32_t i = 0; i < L.rows; i++)
                    for (uint64_t e = off[i]; e < off[i + 1]; e++) {
                        double d = 0, m = 0, s = vk == 0 ? 1 : vk == 1 ? ((const float *)vals)[e] : ((const double *)vals)[e];
                        if (single) s = (float)s;
                        for (uint32_t k = 0; k < K; k++) {
                            const double p = xv[(size_t)i * K + k] * yv[(size_t)idx[e] * K + k];
                            d += p;
                            m += fabs(p);
                        }
                        want[e] = -1.5 * s * d + 0.25 * cin[e];
                        mag[e] = 1.5 * fabs(s) * m + 0.25 * fabs(cin[e]);
                    }
                mg_sddmm_options o;
                mg_sddmm_options_init(&o);
                o.alpha = -1.5;
                o.beta = 0.25;
                double *one = NULL;
                for (int threads = 1; threads <= 3; threads++) {
                    omp_set_num_threads(threads);
                    mg_dense_free(&C);
                    C = dense(types[ti], nnz, 1, c0);
                    CHECK_OK(ctx, mg_sddmm(ctx, S, X, Y, C, &o));
                    CHECK_OK(ctx, mg_check_sddmm(ctx, S, X, Y, C_in, C, &o));
                    double *got = values_of(C);
                    CHECK(count_off(got, want, mag, nnz, types[ti]) == 0);
                    /* SDDMM results do not depend on the thread count at all */
                    if (one == NULL) one = got;
                    else {
                        CHECK(memcmp(got, one, nnz * sizeof *got) == 0);
                        free(got);
                    }
                }
                /* beta 0 never reads C */
                CHECK_OK(ctx, mg_dense_fill(ctx, C, NAN));
                o.beta = 0;
                CHECK_OK(ctx, mg_sddmm(ctx, S, X, Y, C, &o));
                CHECK_OK(ctx, mg_check_sddmm(ctx, S, X, Y, NULL, C, &o));
                free(one);
                free(want);
                free(mag);
                free(xv);
                free(yv);
                free(cin);
                mg_dense_free(&X);
                mg_dense_free(&Y);
                mg_dense_free(&C);
                mg_dense_free(&C_in);
            }
            free(x);
            free(y);
            free(c0);
        }
        mg_matrix_free(&S);
    }
    free_coo(&L);
    omp_set_num_threads(saved);
}

/* ---- bad arguments ------------------------------------------------------------------------------ */

/* The call fails with `want`, its message contains `needle`, and C (when given) still holds 7. */
static void expect_fail(mg_status got, mg_status want, const char *needle, const mg_dense C) {
    CHECK(got == want);
    if (strstr(mg_context_error(ctx), needle) == NULL) {
        fprintf(stderr, "message \"%s\" does not contain \"%s\"\n", mg_context_error(ctx), needle);
        CHECK(0);
    }
    if (C == NULL) return;
    double *v = values_of(C);
    int changed = 0;
    for (size_t i = 0; i < (size_t)mg_dense_rows(C) * mg_dense_cols(C); i++) changed += v[i] != 7;
    CHECK(changed == 0);
    free(v);
}

static mg_dense sevens(mg_type type, uint32_t rows, uint32_t cols) {
    mg_dense X = dense(type, rows, cols, NULL);
    CHECK_OK(ctx, mg_dense_fill(ctx, X, 7));
    return X;
}

static void test_bad_spmm_arguments(void) {
    const uint32_t r[] = {0, 8}, c[] = {6, 0};
    const double v[] = {1, 2};
    mg_matrix A = from_coo(9, 7, 2, r, c, v, MG_VALUES_DOUBLE); /* 9 x 7 */
    mg_dense B = sevens(MG_DOUBLE, 7, 3), C = sevens(MG_DOUBLE, 9, 3);
    mg_dense Bf = sevens(MG_FLOAT, 7, 3), B9 = sevens(MG_DOUBLE, 9, 3), C7 = sevens(MG_DOUBLE, 7, 3);
    mg_dense C4 = sevens(MG_DOUBLE, 9, 4), B0 = NULL, C0 = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &B0, 7, 0, MG_DOUBLE));
    CHECK_OK(ctx, mg_dense_create(ctx, &C0, 9, 0, MG_DOUBLE));
    mg_spmm_options o;
    mg_spmm_options_init(&o);

    expect_fail(mg_spmm(ctx, NULL, B, C, &o), MG_INVALID_ARGUMENT, "mg_spmm: A is NULL", C);
    expect_fail(mg_spmm(ctx, A, NULL, C, &o), MG_INVALID_ARGUMENT, "mg_spmm: B is NULL", C);
    expect_fail(mg_spmm(ctx, A, B, NULL, &o), MG_INVALID_ARGUMENT, "mg_spmm: C is NULL", NULL);
    expect_fail(mg_spmm(ctx, A, B9, C, &o), MG_INVALID_ARGUMENT, "B has 9 rows but A has 7 columns", C);
    expect_fail(mg_spmm(ctx, A, B, C7, &o), MG_INVALID_ARGUMENT, "C has 7 rows but A has 9 rows", C7);
    expect_fail(mg_spmm(ctx, A, Bf, C, &o), MG_INVALID_ARGUMENT, "C is MG_DOUBLE but B is MG_FLOAT", C);
    expect_fail(mg_spmm(ctx, A, B, C4, &o), MG_INVALID_ARGUMENT, "C has 4 columns but B has 3", C4);
    expect_fail(mg_spmm(ctx, A, B0, C0, &o), MG_INVALID_ARGUMENT, "B has 0 columns (K must be at least 1)", NULL);
    expect_fail(mg_spmm(ctx, A, C7, C7, &o), MG_INVALID_ARGUMENT, "mg_spmm: B and C are the same object", C7);
    o.transpose = true; /* A^T is 7 x 9: B needs 9 rows */
    expect_fail(mg_spmm(ctx, A, B, C, &o), MG_INVALID_ARGUMENT, "B has 7 rows but A^T has 9 columns", C);
    expect_fail(mg_spmm(ctx, A, B9, C, &o), MG_INVALID_ARGUMENT, "C has 9 rows but A^T has 7 rows", C);
    o.transpose = false;
    o.alpha = NAN;
    expect_fail(mg_spmm(ctx, A, B, C, &o), MG_INVALID_ARGUMENT, "mg_spmm: opts->alpha is NaN", C);
    o.alpha = 1;
    o.beta = NAN;
    expect_fail(mg_spmm(ctx, A, B, C, &o), MG_INVALID_ARGUMENT, "mg_spmm: opts->beta is NaN", C);
    o.beta = 0;
    struct mg_dense_s garbage;
    memset(&garbage, 0, sizeof garbage);
    expect_fail(mg_spmm(ctx, A, &garbage, C, NULL), MG_INVALID_OBJECT, "mg_spmm: B is not a live", C);
    struct mg_matrix_s freed; /* what mg_matrix_free leaves of a matrix */
    memset(&freed, 0, sizeof freed);
    freed.magic = MG__MAGIC_FREED;
    expect_fail(mg_spmm(ctx, &freed, B, C, NULL), MG_INVALID_OBJECT, "mg_spmm: A is not a live", C);
    CHECK(mg_spmm(NULL, A, B, C, NULL) == MG_INVALID_ARGUMENT);
    /* the checker shares the checks, under its own name, and wants C_in with beta */
    expect_fail(mg_check_spmm(ctx, A, B9, NULL, C, NULL), MG_INVALID_ARGUMENT, "mg_check_spmm: B has 9 rows", C);
    o.beta = 1;
    expect_fail(mg_check_spmm(ctx, A, B, NULL, C, &o), MG_INVALID_ARGUMENT, "mg_check_spmm: C_in is NULL", C);
    expect_fail(mg_check_spmm(ctx, A, B, C4, C, &o), MG_INVALID_ARGUMENT, "C_in (9 x 4) must have C's shape (9 x 3)", C);
    CHECK_OK(ctx, mg_spmm(ctx, A, B, C, NULL));

    mg_dense_free(&B);
    mg_dense_free(&C);
    mg_dense_free(&Bf);
    mg_dense_free(&B9);
    mg_dense_free(&C7);
    mg_dense_free(&C4);
    mg_dense_free(&B0);
    mg_dense_free(&C0);
    mg_matrix_free(&A);
}

static void test_bad_sddmm_arguments(void) {
    const uint32_t r[] = {0, 8, 8}, c[] = {6, 0, 3};
    const double v[] = {1, 2, 3};
    mg_matrix S = from_coo(9, 7, 3, r, c, v, MG_VALUES_DOUBLE); /* 9 x 7, 3 entries */
    mg_dense A = sevens(MG_DOUBLE, 9, 4), B = sevens(MG_DOUBLE, 7, 4), C = sevens(MG_DOUBLE, 3, 1);
    mg_dense Af = sevens(MG_FLOAT, 9, 4), A8 = sevens(MG_DOUBLE, 8, 4), B5 = sevens(MG_DOUBLE, 7, 5);
    mg_dense C2 = sevens(MG_DOUBLE, 3, 2), C4 = sevens(MG_DOUBLE, 4, 1), Cf = sevens(MG_FLOAT, 3, 1);
    mg_dense A0 = NULL, B0 = NULL, Sq = sevens(MG_DOUBLE, 7, 4);
    CHECK_OK(ctx, mg_dense_create(ctx, &A0, 9, 0, MG_DOUBLE));
    CHECK_OK(ctx, mg_dense_create(ctx, &B0, 7, 0, MG_DOUBLE));
    mg_sddmm_options o;
    mg_sddmm_options_init(&o);

    expect_fail(mg_sddmm(ctx, NULL, A, B, C, &o), MG_INVALID_ARGUMENT, "mg_sddmm: S is NULL", C);
    expect_fail(mg_sddmm(ctx, S, NULL, B, C, &o), MG_INVALID_ARGUMENT, "mg_sddmm: A is NULL", C);
    expect_fail(mg_sddmm(ctx, S, A, NULL, C, &o), MG_INVALID_ARGUMENT, "mg_sddmm: B is NULL", C);
    expect_fail(mg_sddmm(ctx, S, A, B, NULL, &o), MG_INVALID_ARGUMENT, "mg_sddmm: C is NULL", NULL);
    expect_fail(mg_sddmm(ctx, S, Af, B, C, &o), MG_INVALID_ARGUMENT, "B is MG_DOUBLE but A is MG_FLOAT", C);
    expect_fail(mg_sddmm(ctx, S, A, B, Cf, &o), MG_INVALID_ARGUMENT, "C is MG_FLOAT but A is MG_DOUBLE", Cf);
    expect_fail(mg_sddmm(ctx, S, A8, B, C, &o), MG_INVALID_ARGUMENT, "A has 8 rows but S has 9 rows", C);
    expect_fail(mg_sddmm(ctx, S, A, A, C, &o), MG_INVALID_ARGUMENT, "B has 9 rows but S has 7 columns", C);
    expect_fail(mg_sddmm(ctx, S, A, B5, C, &o), MG_INVALID_ARGUMENT, "B has 5 columns but A has 4", C);
    expect_fail(mg_sddmm(ctx, S, A0, B0, C, &o), MG_INVALID_ARGUMENT, "A has 0 columns (K must be at least 1)", C);
    expect_fail(mg_sddmm(ctx, S, A, B, C2, &o), MG_INVALID_ARGUMENT, "C is 3 x 2 but S has 3 stored entries", C2);
    expect_fail(mg_sddmm(ctx, S, A, B, C4, &o), MG_INVALID_ARGUMENT, "C is 4 x 1 but S has 3 stored entries", C4);
    expect_fail(mg_sddmm(ctx, S, A, B, A, &o), MG_INVALID_ARGUMENT, "mg_sddmm: A and C are the same object", NULL);
    expect_fail(mg_sddmm(ctx, S, A, B, B, &o), MG_INVALID_ARGUMENT, "mg_sddmm: B and C are the same object", NULL);
    o.alpha = NAN;
    expect_fail(mg_sddmm(ctx, S, A, B, C, &o), MG_INVALID_ARGUMENT, "mg_sddmm: opts->alpha is NaN", C);
    o.alpha = 1;
    o.beta = NAN;
    expect_fail(mg_sddmm(ctx, S, A, B, C, &o), MG_INVALID_ARGUMENT, "mg_sddmm: opts->beta is NaN", C);
    o.beta = 0;
    expect_fail(mg_check_sddmm(ctx, S, A8, B, NULL, C, &o), MG_INVALID_ARGUMENT, "mg_check_sddmm: A has 8 rows", C);
    o.beta = 2;
    expect_fail(mg_check_sddmm(ctx, S, A, B, NULL, C, &o), MG_INVALID_ARGUMENT, "mg_check_sddmm: C_in is NULL", C);
    /* A and B may be one object (S .* (X X^T)) when S is square */
    mg_matrix Q = from_coo(7, 7, 3, c, c, v, MG_VALUES_DOUBLE);
    CHECK_OK(ctx, mg_sddmm(ctx, Q, Sq, Sq, C, NULL));
    CHECK(at(C, 0, 0) == 2 * 7 * 7 * 4); /* (0, 0) comes first, value 2 */
    CHECK_OK(ctx, mg_check_sddmm(ctx, Q, Sq, Sq, NULL, C, NULL));
    mg_matrix_free(&Q);

    mg_dense *all[] = {&A, &B, &C, &Af, &A8, &B5, &C2, &C4, &Cf, &A0, &B0, &Sq};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) mg_dense_free(all[i]);
    mg_matrix_free(&S);
}

/* ---- the verifiers catch a wrong entry; allocation failures -------------------------------------- */

static void test_verifiers_and_failures(void) {
    coo_list L = random_coo(400, 300, 5, 3);
    mg_matrix A = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_DOUBLE);
    const uint32_t K = 9;
    double *b = random_values((size_t)300 * K), *bt = random_values((size_t)400 * K);
    mg_dense B = dense(MG_DOUBLE, 300, K, b), C = dense(MG_DOUBLE, 400, K, NULL);
    CHECK_OK(ctx, mg_spmm(ctx, A, B, C, NULL));
    CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, NULL));
    CHECK_OK(ctx, mg_dense_set(ctx, C, 42, 5, at(C, 42, 5) + 1e-6));
    CHECK_OK(ctx, mg_dense_set(ctx, C, 99, 1, at(C, 99, 1) - 1));
    CHECK(mg_check_spmm(ctx, A, B, NULL, C, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_check_spmm: C[42][5] = ") != NULL);
    CHECK_OK(ctx, mg_dense_set(ctx, C, 42, 2, at(C, 42, 2) * 1.5 + 1)); /* earlier in the row */
    CHECK(mg_check_spmm(ctx, A, B, NULL, C, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_check_spmm: C[42][2] = ") != NULL);

    /* transposed: the first entry off is named */
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    o.transpose = true;
    mg_dense Bt = dense(MG_DOUBLE, 400, K, bt), Ct = dense(MG_DOUBLE, 300, K, NULL);
    CHECK_OK(ctx, mg_spmm(ctx, A, Bt, Ct, &o));
    CHECK_OK(ctx, mg_check_spmm(ctx, A, Bt, NULL, Ct, &o));
    CHECK_OK(ctx, mg_dense_set(ctx, Ct, 7, 8, at(Ct, 7, 8) * 1.001 + 0.01));
    CHECK(mg_check_spmm(ctx, A, Bt, NULL, Ct, &o) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "C[7][8]") != NULL);
    CHECK(strstr(mg_context_error(ctx), "transposed") != NULL);

    /* SDDMM: a wrong entry named by its position and (row, column) */
    const uint64_t nnz = mg_matrix_nnz(A);
    mg_dense X = dense(MG_DOUBLE, 400, K, bt), Y = dense(MG_DOUBLE, 300, K, b), S = dense(MG_DOUBLE, nnz, 1, NULL);
    CHECK_OK(ctx, mg_sddmm(ctx, A, X, Y, S, NULL));
    CHECK_OK(ctx, mg_check_sddmm(ctx, A, X, Y, NULL, S, NULL));
    CHECK_OK(ctx, mg_dense_set(ctx, S, 17, 0, at(S, 17, 0) + 1e-3));
    CHECK(mg_check_sddmm(ctx, A, X, Y, NULL, S, NULL) == MG_INVALID_ARGUMENT);
    const uint64_t *off;
    const uint32_t *idx;
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, NULL));
    uint32_t row = 0;
    while (off[row + 1] <= 17) row++;
    char needle[64];
    snprintf(needle, sizeof needle, "C[17], S's entry (%u, %u)", row, idx[17]);
    CHECK(strstr(mg_context_error(ctx), needle) != NULL);

    /* transpose builds the CSC, then the partial sums: every allocation failing in turn fails
     * cleanly, C untouched */
    mg_dense C7 = sevens(MG_DOUBLE, 300, K);
    int failures = 0, clean = 1;
    for (uint64_t k = 1; k < 64; k++) {
        mg_matrix A2 = from_coo(L.rows, L.cols, L.nnz, L.r, L.c, L.v, MG_VALUES_DOUBLE);
        mg__inject_alloc_failure(k);
        mg_status st = mg_spmm(ctx, A2, Bt, C7, &o);
        mg__inject_alloc_failure(0);
        mg_matrix_free(&A2);
        if (st == MG_SUCCESS) break;
        failures++;
        clean &= st == MG_OUT_OF_MEMORY;
        double *v = values_of(C7);
        for (size_t i = 0; i < (size_t)300 * K; i++) clean &= v[i] == 7;
        free(v);
    }
    CHECK(failures >= 3 && clean);
    mg__inject_alloc_failure(1);
    CHECK(mg_spmm(ctx, A, B, C, NULL) == MG_OUT_OF_MEMORY);
    mg__inject_alloc_failure(0);
    CHECK(strstr(mg_context_error(ctx), "mg_spmm: out of memory") != NULL);

    mg_dense *all[] = {&B, &C, &Bt, &Ct, &X, &Y, &S, &C7};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) mg_dense_free(all[i]);
    free(b);
    free(bt);
    mg_matrix_free(&A);
    free_coo(&L);
}

/* ---- TF32 allowed: exact on the CPU; the verifier's looser tolerance ---------------------------- */

/* opts.tf32 leaves the CPU's product exact (the same float result as without); mg_check_spmm
 * takes 1.25e-3 of the products' magnitudes for float with tf32, float's 1e-5 without, and
 * double's own with double operands. A = [2 0 0 1; 0 0 0 0; 4 0 3 0] and B = [1 2; 3 4; 0.5 1;
 * 2 1] are positive, so an entry's magnitude sum is the entry: C[2][1] = 11. */
static void test_tf32(void) {
    static const double av[] = {2, 1, 4, 3}, bv[] = {1, 2, 3, 4, 0.5, 1, 2, 1};
    mg_matrix A = from_coo(3, 4, 4, hr, hc, av, MG_VALUES_FLOAT);
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    CHECK(!o.tf32);
    o.tf32 = true;
    for (int t = 0; t < 2; t++) {
        const mg_type type = t ? MG_DOUBLE : MG_FLOAT;
        mg_dense B = dense(type, 4, 2, bv), C = dense(type, 3, 2, NULL), E = dense(type, 3, 2, NULL);
        CHECK_OK(ctx, mg_spmm(ctx, A, B, C, &o));
        CHECK_OK(ctx, mg_spmm(ctx, A, B, E, NULL));
        static const double want[] = {4, 5, 0, 0, 5.5, 11};
        expect_equal(C, want, 6);
        expect_equal(E, want, 6);
        CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, &o));
        CHECK_OK(ctx, mg_dense_set(ctx, C, 2, 1, 11 * (1 + 5e-4)));
        if (type == MG_FLOAT) CHECK_OK(ctx, mg_check_spmm(ctx, A, B, NULL, C, &o));
        else CHECK(mg_check_spmm(ctx, A, B, NULL, C, &o) == MG_INVALID_ARGUMENT);
        CHECK(mg_check_spmm(ctx, A, B, NULL, C, NULL) == MG_INVALID_ARGUMENT);
        CHECK(strstr(mg_context_error(ctx), "C[2][1]") != NULL);
        CHECK_OK(ctx, mg_dense_set(ctx, C, 2, 1, 11 * (1 + 2e-3)));
        CHECK(mg_check_spmm(ctx, A, B, NULL, C, &o) == MG_INVALID_ARGUMENT);
        mg_dense_free(&B);
        mg_dense_free(&C);
        mg_dense_free(&E);
    }
    mg_matrix_free(&A);
}

/* ---- an SDDMM result as a matrix ----------------------------------------------------------------- */

static void test_with_values(void) {
    /* S from a Matrix Market file (1-based), with an empty row and a duplicate summed */
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n"
                               "4 5 6\n1 2 1.5\n1 5 -2\n3 1 4\n3 3 1\n4 4 2\n4 4 0.5\n";
    mg_matrix S = NULL, M = NULL, R = NULL;
    CHECK_OK(ctx, mg_matrix_read(ctx, &S, write_file(tmp("s.mtx"), text, sizeof text - 1), NULL));
    CHECK(mg_matrix_nnz(S) == 5);
    const double x[] = {1, 2, 3, 4, 5, 6, 7, 8}, y[] = {1, 0, 0, 1, 1, 1, 2, -1, 0.5, 0.5};
    for (int ti = 0; ti < 2; ti++) {
        mg_dense X = dense(types[ti], 4, 2, x), Y = dense(types[ti], 5, 2, y), C = dense(types[ti], 5, 1, NULL);
        CHECK_OK(ctx, mg_sddmm(ctx, S, X, Y, C, NULL));
        /* (0,1) 1.5 * (1*0 + 2*1) = 3; (0,4) -2 * (0.5 + 1) = -3; (2,0) 4 * 5 = 20;
         * (2,2) 1 * (5 + 6) = 11; (3,3) 2.5 * (14 - 8) = 15 */
        const double want[] = {3, -3, 20, 11, 15};
        expect_equal(C, want, 5);
        CHECK_OK(ctx, mg_matrix_with_values(ctx, S, C, &M));
        CHECK(mg_matrix_rows(M) == 4 && mg_matrix_cols(M) == 5 && mg_matrix_nnz(M) == 5);
        CHECK(mg_matrix_values(M) == (types[ti] == MG_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE));
        const uint64_t *so, *mo;
        const uint32_t *si, *mi;
        const void *mv;
        CHECK_OK(ctx, mg_matrix_csr(S, &so, &si, NULL));
        CHECK_OK(ctx, mg_matrix_csr(M, &mo, &mi, &mv));
        CHECK(so != mo && memcmp(so, mo, 5 * sizeof *so) == 0 && memcmp(si, mi, 5 * sizeof *si) == 0);
        for (int e = 0; e < 5; e++)
            CHECK((types[ti] == MG_FLOAT ? ((const float *)mv)[e] : ((const double *)mv)[e]) == want[e]);
        /* the new matrix owns its arrays: it outlives S's inputs and C */
        mg_dense_free(&C);
        CHECK_OK(ctx, mg_matrix_write(ctx, M, tmp("m.mtx")));
        CHECK_OK(ctx, mg_matrix_read(ctx, &R, tmp("m.mtx"), NULL));
        const uint64_t *ro;
        const uint32_t *ri;
        const void *rv;
        CHECK_OK(ctx, mg_matrix_csr(R, &ro, &ri, &rv));
        CHECK(mg_matrix_nnz(R) == 5 && memcmp(ro, so, 5 * sizeof *ro) == 0 &&
              memcmp(ri, si, 5 * sizeof *ri) == 0);
        for (int e = 0; e < 5; e++) CHECK(((const double *)rv)[e] == want[e]);
        mg_matrix_free(&R);
        mg_matrix_free(&M);
        mg_dense_free(&X);
        mg_dense_free(&Y);
    }
    /* bad arguments */
    mg_dense v4 = dense(MG_DOUBLE, 4, 1, NULL), v52 = dense(MG_DOUBLE, 5, 2, NULL);
    M = (mg_matrix)&M;
    CHECK(mg_matrix_with_values(ctx, S, v4, &M) == MG_INVALID_ARGUMENT && M == NULL);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_with_values: v is 4 x 1 but S has 5 stored entries") != NULL);
    CHECK(mg_matrix_with_values(ctx, S, v52, &M) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "v is 5 x 2") != NULL);
    CHECK(mg_matrix_with_values(ctx, S, NULL, &M) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_with_values: v is NULL") != NULL);
    CHECK(mg_matrix_with_values(ctx, NULL, v4, &M) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_with_values: S is NULL") != NULL);
    CHECK(mg_matrix_with_values(ctx, S, v4, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_with_values: out is NULL") != NULL);
    /* every allocation failing in turn: a clean error, nothing made */
    mg_dense v5 = dense(MG_FLOAT, 5, 1, NULL);
    int failures = 0, clean = 1;
    for (uint64_t k = 1; k < 16; k++) {
        mg__inject_alloc_failure(k);
        mg_status st = mg_matrix_with_values(ctx, S, v5, &M);
        mg__inject_alloc_failure(0);
        if (st == MG_SUCCESS) break;
        failures++;
        clean &= st == MG_OUT_OF_MEMORY && M == NULL;
    }
    CHECK(failures == 4 && clean);
    mg_matrix_free(&M);
    mg_dense_free(&v4);
    mg_dense_free(&v5);
    mg_dense_free(&v52);
    mg_matrix_free(&S);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    if (temp_dir_make("spmm") != 0) return 2;
    test_by_hand();
    test_random_spmm();
    test_single_dense_row();
    test_alpha_beta();
    test_random_sddmm();
    test_bad_spmm_arguments();
    test_bad_sddmm_arguments();
    test_verifiers_and_failures();
    test_tf32();
    test_with_values();
    temp_dir_remove();
    mg_context_free(&ctx);
    return check_report();
}
