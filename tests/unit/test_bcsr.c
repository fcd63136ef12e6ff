/*
 * test_bcsr.c — block-CSR matrices on the CPU: CSR -> BCSR -> CSR round trips for k = 2, 3, 32 and
 * every value type on shapes that are not multiples of k; the product against mg_spgemm (float and
 * double within rounding, through mg_check_bcsr) and against the test's own dense uint64 triple
 * loop with values large enough to wrap modulo 2^64 (exact); a chain of matrices folded left and
 * right (exact); 1 and 2 threads giving the same bits; the text format written and read back, as
 * .mtx too; every malformed file naming its line; bad arguments; allocation failures.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "mg_internal.h"
#include "mgraph.h"
#include "temp_dir.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A rows x cols matrix, each entry present with probability percent / 100, values non-zero
 * integers in [1, span] (as doubles; exact in float for span <= 2^24), a dense copy in *dense. */
static mg_matrix random_matrix(uint32_t rows, uint32_t cols, int percent, uint64_t span,
                               double **dense) {
    uint32_t *r = malloc((size_t)rows * cols * sizeof *r + 4);
    uint32_t *c = malloc((size_t)rows * cols * sizeof *c + 4);
    double *v = malloc((size_t)rows * cols * sizeof *v + 8);
    double *d = calloc((size_t)rows * cols + 1, sizeof *d);
    uint64_t n = 0;
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols; j++)
            if ((int)(next_random() % 100) < percent) {
                r[n] = i;
                c[n] = j;
                v[n] = (double)(1 + next_random() % span);
                d[(size_t)i * cols + j] = v[n];
                n++;
            }
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, rows, cols, n, r, c, v, MG_VALUES_DOUBLE));
    free(r);
    free(c);
    free(v);
    if (dense != NULL) *dense = d;
    else free(d);
    return A;
}

/* Whether two matrices hold the same non-zero entries with the same values (exactly). */
static bool same_entries(const mg_matrix A, const mg_matrix B) {
    if (mg_matrix_rows(A) != mg_matrix_rows(B) || mg_matrix_cols(A) != mg_matrix_cols(B)) return false;
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    double *da = calloc((size_t)rows * cols + 1, sizeof *da);
    double *db = calloc((size_t)rows * cols + 1, sizeof *db);
    const mg_matrix M[2] = {A, B};
    double *D[2] = {da, db};
    for (int m = 0; m < 2; m++) {
        const uint64_t *off;
        const uint32_t *idx;
        const void *val;
        mg_matrix_csr(M[m], &off, &idx, &val);
        for (uint32_t i = 0; i < rows; i++)
            for (uint64_t e = off[i]; e < off[i + 1]; e++)
                D[m][(size_t)i * cols + idx[e]] =
                    mg_matrix_values(M[m]) == MG_VALUES_FLOAT ? ((const float *)val)[e]
                                                              : ((const double *)val)[e];
    }
    const bool same = memcmp(da, db, (size_t)rows * cols * sizeof *da) == 0;
    free(da);
    free(db);
    return same;
}

static const mg_bcsr_values types[] = {MG_BCSR_UINT64, MG_BCSR_FLOAT, MG_BCSR_DOUBLE};
static const uint32_t sides[] = {2, 3, 32};

static void test_round_trip(void) {
    const uint32_t shapes[][2] = {{37, 29}, {1, 1}, {64, 64}, {5, 70}, {33, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t t = 0; t < 3; t++)
            for (size_t q = 0; q < 3; q++) {
                const uint32_t k = sides[q];
                mg_matrix A = random_matrix(shapes[s][0], shapes[s][1], 15, 1000, NULL), back = NULL;
                mg_bcsr B = NULL;
                CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, k, types[t], &B));
                CHECK(mg_bcsr_rows(B) == shapes[s][0] && mg_bcsr_cols(B) == shapes[s][1]);
                CHECK(mg_bcsr_block_size(B) == k && mg_bcsr_type(B) == types[t]);
                /* every block holds an entry, columns sorted within each block row */
                const uint64_t *off;
                const uint32_t *bc;
                CHECK_OK(ctx, mg_bcsr_arrays(B, &off, &bc, NULL));
                bool sorted = true;
                for (uint32_t i = 0; i < (shapes[s][0] + k - 1) / k; i++)
                    for (uint64_t p = off[i] + 1; p < off[i + 1]; p++) sorted &= bc[p] > bc[p - 1];
                CHECK(sorted && off[(shapes[s][0] + k - 1) / k] == mg_bcsr_nblocks(B));
                CHECK_OK(ctx, mg_bcsr_to_matrix(ctx, B, &back));
                CHECK(same_entries(A, back));
                CHECK(mg_matrix_values(back) ==
                      (types[t] == MG_BCSR_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE));
                /* the arrays make the same matrix again */
                mg_bcsr again = NULL;
                const void *vals;
                mg_bcsr_arrays(B, NULL, NULL, &vals);
                CHECK_OK(ctx, mg_bcsr_create(ctx, &again, shapes[s][0], shapes[s][1], k, types[t],
                                             off, bc, vals));
                CHECK_OK(ctx, mg_check_bcsr(ctx, B, again));
                mg_bcsr_free(&again);
                mg_bcsr_free(&B);
                mg_matrix_free(&back);
                mg_matrix_free(&A);
            }
    /* a pattern reads as 1; a negative integer is its residue modulo 2^64; a fraction is refused */
    const uint32_t r[] = {0, 2}, c[] = {1, 2};
    const double neg[] = {-1, 5}, frac[] = {1.5, 2};
    mg_matrix P = NULL, N = NULL, F = NULL;
    mg_bcsr B = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &P, 3, 3, 2, r, c, NULL, MG_VALUES_NONE));
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, P, 2, MG_BCSR_UINT64, &B));
    const void *vals;
    mg_bcsr_arrays(B, NULL, NULL, &vals);
    CHECK(mg_bcsr_nblocks(B) == 2 && ((const uint64_t *)vals)[1] == 1 && ((const uint64_t *)vals)[4] == 1);
    mg_bcsr_free(&B);
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &N, 3, 3, 2, r, c, neg, MG_VALUES_DOUBLE));
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, N, 2, MG_BCSR_UINT64, &B));
    mg_bcsr_arrays(B, NULL, NULL, &vals);
    CHECK(((const uint64_t *)vals)[1] == UINT64_MAX);
    mg_bcsr_free(&B);
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &F, 3, 3, 2, r, c, frac, MG_VALUES_DOUBLE));
    CHECK(mg_bcsr_from_matrix(ctx, F, 2, MG_BCSR_UINT64, &B) == MG_INVALID_ARGUMENT && B == NULL);
    CHECK(strstr(mg_context_error(ctx), "A(0, 1) = 1.5") != NULL);
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, F, 2, MG_BCSR_DOUBLE, &B));
    mg_bcsr_free(&B);
    CHECK(mg_bcsr_from_matrix(ctx, F, 1, MG_BCSR_DOUBLE, &B) == MG_INVALID_ARGUMENT);
    CHECK(mg_bcsr_from_matrix(ctx, F, 33, MG_BCSR_DOUBLE, &B) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "k = 33") != NULL);
    mg_matrix_free(&P);
    mg_matrix_free(&N);
    mg_matrix_free(&F);
}

/* C = A B by a dense triple loop in uint64 (wrapping) over the dense copies' integer values. */
static uint64_t *dense_u64_product(const double *a, const double *b, uint32_t m, uint32_t n, uint32_t p) {
    uint64_t *c = calloc((size_t)m * p + 1, sizeof *c);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t l = 0; l < n; l++)
            for (uint32_t j = 0; j < p; j++)
                c[(size_t)i * p + j] += (uint64_t)a[(size_t)i * n + l] * (uint64_t)b[(size_t)l * p + j];
    return c;
}

/* Whether B's entries equal the dense uint64 matrix d exactly (blocks it lacks read as zero). */
static bool equals_dense_u64(const mg_bcsr B, const uint64_t *d) {
    const uint32_t k = mg_bcsr_block_size(B), rows = mg_bcsr_rows(B), cols = mg_bcsr_cols(B);
    uint64_t *got = calloc((size_t)rows * cols + 1, sizeof *got);
    const uint64_t *off;
    const uint32_t *bc;
    const void *vals;
    mg_bcsr_arrays(B, &off, &bc, &vals);
    for (uint32_t i = 0; i < (rows + k - 1) / k; i++)
        for (uint64_t p = off[i]; p < off[i + 1]; p++)
            for (uint32_t t = 0; t < k * k; t++) {
                const uint64_t r = (uint64_t)i * k + t / k, c = (uint64_t)bc[p] * k + t % k;
                const uint64_t v = ((const uint64_t *)vals)[p * k * k + t];
                if (r < rows && c < cols) got[r * cols + c] = v;
                else if (v != 0) return false;
            }
    const bool same = memcmp(got, d, (size_t)rows * cols * sizeof *got) == 0;
    free(got);
    return same;
}

static void test_product(void) {
    const uint32_t dims[][3] = {{37, 29, 41}, {8, 8, 8}, {70, 5, 33}, {3, 66, 2}};
    for (size_t s = 0; s < sizeof dims / sizeof dims[0]; s++)
        for (size_t q = 0; q < 3; q++) {
            const uint32_t m = dims[s][0], n = dims[s][1], p = dims[s][2], k = sides[q];
            double *da, *db;
            mg_matrix A = random_matrix(m, n, 20, 100, &da), B = random_matrix(n, p, 20, 100, &db);
            mg_matrix C = NULL;
            CHECK_OK(ctx, mg_spgemm(ctx, A, B, &C, NULL));
            for (size_t t = 1; t < 3; t++) {
                mg_bcsr a = NULL, b = NULL, c = NULL, want = NULL;
                CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, k, types[t], &a));
                CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, B, k, types[t], &b));
                CHECK_OK(ctx, mg_bcsr_multiply(ctx, a, b, &c, NULL));
                CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, C, k, types[t], &want));
                CHECK_OK(ctx, mg_check_bcsr(ctx, want, c));
                mg_bcsr_free(&a);
                mg_bcsr_free(&b);
                mg_bcsr_free(&c);
                mg_bcsr_free(&want);
            }
            mg_matrix_free(&A);
            mg_matrix_free(&B);
            mg_matrix_free(&C);
            free(da);
            free(db);
            /* uint64: values near 2^40, so products pass 2^64 and wrap */
            A = random_matrix(m, n, 30, (uint64_t)1 << 40, &da);
            B = random_matrix(n, p, 30, (uint64_t)1 << 40, &db);
            uint64_t *want = dense_u64_product(da, db, m, n, p);
            mg_bcsr a = NULL, b = NULL, c = NULL;
            CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, k, MG_BCSR_UINT64, &a));
            CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, B, k, MG_BCSR_UINT64, &b));
            CHECK_OK(ctx, mg_bcsr_multiply(ctx, a, b, &c, NULL));
            CHECK(mg_bcsr_rows(c) == m && mg_bcsr_cols(c) == p && mg_bcsr_block_size(c) == k);
            CHECK(equals_dense_u64(c, want));
            mg_bcsr_free(&a);
            mg_bcsr_free(&b);
            mg_bcsr_free(&c);
            mg_matrix_free(&A);
            mg_matrix_free(&B);
            free(da);
            free(db);
            free(want);
        }
}

/* N matrices of one block size: folded left ((A1 A2) A3 ...) and right (A1 (A2 (A3 ...))), on 1
 * and 2 threads, against the dense uint64 product: all exact. */
static void test_chain(void) {
    enum { N = 6 };
    const uint32_t dim[N + 1] = {40, 35, 50, 9, 44, 40, 17};
    for (size_t q = 0; q < 3; q++) {
        const uint32_t k = sides[q];
        mg_bcsr M[N] = {0};
        double *dense[N];
        for (int i = 0; i < N; i++) {
            mg_matrix A = random_matrix(dim[i], dim[i + 1], 12, (uint64_t)1 << 33, &dense[i]);
            CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, k, MG_BCSR_UINT64, &M[i]));
            mg_matrix_free(&A);
        }
        /* the dense reference, left to right */
        uint64_t *ref = malloc((size_t)dim[0] * dim[1] * sizeof *ref);
        for (size_t e = 0; e < (size_t)dim[0] * dim[1]; e++) ref[e] = (uint64_t)dense[0][e];
        for (int i = 1; i < N; i++) {
            uint64_t *next = calloc((size_t)dim[0] * dim[i + 1], sizeof *next);
            for (uint32_t r = 0; r < dim[0]; r++)
                for (uint32_t l = 0; l < dim[i]; l++)
                    for (uint32_t c = 0; c < dim[i + 1]; c++)
                        next[(size_t)r * dim[i + 1] + c] +=
                            ref[(size_t)r * dim[i] + l] * (uint64_t)dense[i][(size_t)l * dim[i + 1] + c];
            free(ref);
            ref = next;
        }
        for (int threads = 1; threads <= 2; threads++) {
            CHECK_OK(ctx, mg_context_set_threads(ctx, threads));
            mg_bcsr left = NULL, right = NULL;
            CHECK_OK(ctx, mg_bcsr_multiply(ctx, M[0], M[1], &left, NULL));
            for (int i = 2; i < N; i++) {
                mg_bcsr next = NULL;
                CHECK_OK(ctx, mg_bcsr_multiply(ctx, left, M[i], &next, NULL));
                mg_bcsr_free(&left);
                left = next;
            }
            CHECK_OK(ctx, mg_bcsr_multiply(ctx, M[N - 2], M[N - 1], &right, NULL));
            for (int i = N - 3; i >= 0; i--) {
                mg_bcsr next = NULL;
                CHECK_OK(ctx, mg_bcsr_multiply(ctx, M[i], right, &next, NULL));
                mg_bcsr_free(&right);
                right = next;
            }
            CHECK(equals_dense_u64(left, ref));
            CHECK_OK(ctx, mg_check_bcsr(ctx, left, right));
            CHECK(mg_bcsr_nblocks(left) == mg_bcsr_nblocks(right));
            mg_bcsr_free(&left);
            mg_bcsr_free(&right);
        }
        CHECK_OK(ctx, mg_context_set_threads(ctx, 0));
        free(ref);
        for (int i = 0; i < N; i++) {
            mg_bcsr_free(&M[i]);
            free(dense[i]);
        }
    }
}

static void test_bad_arguments(void) {
    mg_matrix A = random_matrix(10, 12, 30, 9, NULL), B = random_matrix(12, 7, 30, 9, NULL);
    mg_bcsr a = NULL, b = NULL, b3 = NULL, bf = NULL, c = (mg_bcsr)1;
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, 2, MG_BCSR_UINT64, &a));
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, B, 2, MG_BCSR_UINT64, &b));
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, B, 3, MG_BCSR_UINT64, &b3));
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, B, 2, MG_BCSR_FLOAT, &bf));
    CHECK(mg_bcsr_multiply(ctx, b, a, &c, NULL) == MG_INVALID_ARGUMENT && c == NULL);
    CHECK(strstr(mg_context_error(ctx), "A is 12 x 7 but B is 10 x 12") != NULL);
    CHECK(mg_bcsr_multiply(ctx, a, b3, &c, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "side 2 but B of side 3") != NULL);
    CHECK(mg_bcsr_multiply(ctx, a, bf, &c, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "uint64 values but B float") != NULL);
    CHECK(mg_bcsr_multiply(ctx, a, NULL, &c, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_bcsr_multiply(ctx, a, b, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_check_bcsr(ctx, a, b) == MG_INVALID_ARGUMENT);
    /* the verifier names an entry off */
    mg_bcsr a2 = NULL;
    const uint64_t *off;
    const uint32_t *bc;
    const void *vals;
    mg_bcsr_arrays(a, &off, &bc, &vals);
    uint64_t *changed = malloc(mg_bcsr_nblocks(a) * 4 * sizeof *changed);
    memcpy(changed, vals, mg_bcsr_nblocks(a) * 4 * sizeof *changed);
    changed[0] += 1;
    CHECK_OK(ctx, mg_bcsr_create(ctx, &a2, 10, 12, 2, MG_BCSR_UINT64, off, bc, changed));
    CHECK(mg_check_bcsr(ctx, a, a2) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "entry (") != NULL);
    mg_bcsr_free(&a2);
    /* create: a column out of order, a value outside the matrix */
    const uint64_t off2[] = {0, 2};
    const uint32_t cols_bad[] = {1, 0};
    uint64_t v8[8] = {0};
    CHECK(mg_bcsr_create(ctx, &a2, 2, 4, 2, MG_BCSR_UINT64, off2, cols_bad, v8) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "not above the one before it") != NULL);
    const uint64_t off1[] = {0, 1};
    const uint32_t col0[] = {0};
    v8[3] = 7; /* (1, 1) of a 1 x 3 matrix in blocks of 2 */
    CHECK(mg_bcsr_create(ctx, &a2, 1, 3, 2, MG_BCSR_UINT64, off1, col0, v8) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "outside the 1 x 3 matrix") != NULL && a2 == NULL);
    free(changed);
    mg_bcsr_free(&a);
    mg_bcsr_free(&b);
    mg_bcsr_free(&b3);
    mg_bcsr_free(&bf);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
}

static void test_files(void) {
    for (size_t t = 0; t < 3; t++)
        for (size_t q = 0; q < 3; q++) {
            const uint32_t k = sides[q];
            mg_matrix A = random_matrix(23, 45, 20, types[t] == MG_BCSR_UINT64 ? (uint64_t)1 << 62 : 1000,
                                        NULL),
                      back = NULL, read = NULL;
            mg_bcsr B = NULL, R = NULL;
            CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, k, types[t], &B));
            CHECK_OK(ctx, mg_bcsr_write(ctx, B, tmp("m.bcsr")));
            CHECK_OK(ctx, mg_bcsr_read(ctx, &R, tmp("m.bcsr"), k, types[t]));
            const uint64_t *o1, *o2;
            const uint32_t *c1, *c2;
            const void *v1, *v2;
            mg_bcsr_arrays(B, &o1, &c1, &v1);
            mg_bcsr_arrays(R, &o2, &c2, &v2);
            const size_t vs = types[t] == MG_BCSR_FLOAT ? 4 : 8;
            CHECK(mg_bcsr_nblocks(R) == mg_bcsr_nblocks(B) && mg_bcsr_rows(R) == 23 && mg_bcsr_cols(R) == 45);
            CHECK(memcmp(o1, o2, ((23 + k - 1) / k + 1) * 8) == 0);
            CHECK(memcmp(c1, c2, mg_bcsr_nblocks(B) * 4) == 0);
            CHECK(memcmp(v1, v2, mg_bcsr_nblocks(B) * k * k * vs) == 0);
            if (types[t] != MG_BCSR_UINT64) {
                CHECK_OK(ctx, mg_bcsr_write(ctx, B, tmp("m.mtx")));
                CHECK_OK(ctx, mg_matrix_read(ctx, &read, tmp("m.mtx"), NULL));
                CHECK_OK(ctx, mg_bcsr_to_matrix(ctx, B, &back));
                CHECK(mg_matrix_nnz(read) == mg_matrix_nnz(A) && same_entries(back, read));
            }
            mg_bcsr_free(&B);
            mg_bcsr_free(&R);
            mg_matrix_free(&A);
            mg_matrix_free(&back);
            mg_matrix_free(&read);
        }
    /* blocks in any order; a 3 x 3 matrix in blocks of 2 */
    const char *ok = "% comment\n# another\n3 3 2\n1 0 5 6 0 0\n\n0 1 1 0 2 0\n";
    mg_bcsr B = NULL;
    CHECK_OK(ctx, mg_bcsr_read(ctx, &B, write_file(tmp("ok"), ok, strlen(ok)), 2, MG_BCSR_UINT64));
    const uint64_t *off;
    const uint32_t *bc;
    const void *vals;
    mg_bcsr_arrays(B, &off, &bc, &vals);
    CHECK(off[1] == 1 && off[2] == 2 && bc[0] == 1 && bc[1] == 0 && ((const uint64_t *)vals)[4] == 5);
    mg_bcsr_free(&B);

    static const struct {
        const char *text;
        const char *message; /* what the error must say */
    } bad[] = {
        {"3 3 1\n0 0 1 2 3\n", ":2: the block has 3 values but k = 2 needs 4"},
        {"3 3 1\n0 0 1 2 3 4 5\n", ":2: the block has more than the 4 values"},
        {"3 3 1\n0 0 1 x 3 4\n", ":2: value 2 'x' is not an unsigned integer"},
        {"3 3 1\n0 0 1 -2 3 4\n", ":2: value 2 '-2' is negative"},
        {"3 3 1\n2 0 1 2 3 4\n", ":2: block row 2 is out of range (at most 1)"},
        {"3 3 2\n0 0 1 2 3 4\n", ":3: the file ends after 1 of the 2 blocks"},
        {"3 3 1\n0 0 1 2 3 4\n1 1 0 0 0 0\n", ":3: more blocks than the 1"},
        {"3 3 2\n0 0 1 2 3 4\n% c\n0 0 1 2 3 4\n", ":4: block (0, 0) again (first on line 2)"},
        {"3 3 1\n1 1 1 2 3 4\n", ":2: value 2 is not zero but lies at (2, 3), outside the 3 x 3"},
        {"3 3\n", ":1: nblocks is missing"},
        {"% only a comment\n", "no size line"},
        {"3 3 9\n", ":1: 9 blocks cannot be"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        B = (mg_bcsr)1;
        const char *path = write_file(tmp("bad"), bad[i].text, strlen(bad[i].text));
        CHECK(mg_bcsr_read(ctx, &B, path, 2, MG_BCSR_UINT64) == MG_PARSE_ERROR && B == NULL);
        if (strstr(mg_context_error(ctx), bad[i].message) == NULL)
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, mg_context_error(ctx), bad[i].message);
        CHECK(strstr(mg_context_error(ctx), bad[i].message) != NULL);
        CHECK(strstr(mg_context_error(ctx), path) != NULL);
    }
    CHECK(mg_bcsr_read(ctx, &B, tmp("missing"), 2, MG_BCSR_UINT64) == MG_IO_ERROR);
    CHECK(strstr(mg_context_error(ctx), "missing") != NULL);
    const char *real = "2 2 1\n0 0 1.5 -2 1e3 0\n";
    CHECK_OK(ctx, mg_bcsr_read(ctx, &B, write_file(tmp("real"), real, strlen(real)), 2, MG_BCSR_DOUBLE));
    mg_bcsr_arrays(B, NULL, NULL, &vals);
    CHECK(((const double *)vals)[0] == 1.5 && ((const double *)vals)[2] == 1000);
    mg_bcsr_free(&B);
    CHECK(mg_bcsr_read(ctx, &B, tmp("real"), 2, MG_BCSR_UINT64) == MG_PARSE_ERROR);

    /* the size file */
    uint32_t n = 0, k = 0;
    const char *size = "# chain\n5 4\n";
    CHECK_OK(ctx, mg_bcsr_read_size(ctx, write_file(tmp("size"), size, strlen(size)), &n, &k));
    CHECK(n == 5 && k == 4);
    static const struct {
        const char *text, *message;
    } bad_size[] = {{"5\n", ":1: k (the block side) is missing"},
                    {"0 4\n", "N is 0"},
                    {"5 1\n", "k must be at least 2"},
                    {"5 33\n", "k (the block side) 33 is out of range"},
                    {"5 4\n6 4\n", ":2: more than the one line"}};
    for (size_t i = 0; i < sizeof bad_size / sizeof bad_size[0]; i++) {
        const char *path = write_file(tmp("size"), bad_size[i].text, strlen(bad_size[i].text));
        CHECK(mg_bcsr_read_size(ctx, path, &n, &k) == MG_PARSE_ERROR);
        CHECK(strstr(mg_context_error(ctx), bad_size[i].message) != NULL);
    }
}

/* Every allocation that fails gives MG_OUT_OF_MEMORY, a NULL result and (under ASan) no leak. */
static void test_allocation_failures(void) {
    mg_matrix A = random_matrix(30, 30, 20, 50, NULL);
    mg_bcsr a = NULL;
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, 3, MG_BCSR_DOUBLE, &a));
    CHECK_OK(ctx, mg_bcsr_write(ctx, a, tmp("a.bcsr")));
    int failures = 0;
    bool clean = true;
    for (int what = 0; what < 3; what++)
        for (uint64_t k = 1; k < 64; k++) {
            mg_bcsr out = (mg_bcsr)1;
            mg__inject_alloc_failure(k);
            mg_status st = what == 0   ? mg_bcsr_from_matrix(ctx, A, 3, MG_BCSR_DOUBLE, &out)
                           : what == 1 ? mg_bcsr_multiply(ctx, a, a, &out, NULL)
                                       : mg_bcsr_read(ctx, &out, tmp("a.bcsr"), 3, MG_BCSR_DOUBLE);
            mg__inject_alloc_failure(0);
            if (st == MG_SUCCESS) {
                mg_bcsr_free(&out);
                break;
            }
            failures++;
            clean &= st == MG_OUT_OF_MEMORY && out == NULL;
        }
    CHECK(failures >= 6 && clean);
    mg_bcsr_free(&a);
    mg_matrix_free(&A);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    if (temp_dir_make("bcsr") != 0) return 2;
    test_round_trip();
    test_product();
    test_chain();
    test_bad_arguments();
    test_files();
    test_allocation_failures();
    temp_dir_remove();
    mg_context_free(&ctx);
    return check_report();
}
