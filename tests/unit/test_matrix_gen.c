/*
 * test_matrix_gen.c — mg_matrix_generate: each kind's size, structure and values (the Poisson
 * stencils symmetric with 4 or 6 on the diagonal and -1 beside it, rows summing to 0 inside the
 * grid; band and block limits; uniform and R-MAT counts and skew), the same matrix for 1 and 2
 * threads, seeds that matter, and option errors.
 */
#include "check.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <string.h>

static mg_context ctx;

static mg_matrix_gen_options kind(mg_matrix_generator k) {
    mg_matrix_gen_options o;
    mg_matrix_gen_options_init(&o);
    o.kind = k;
    return o;
}

static mg_matrix make(const mg_matrix_gen_options *o) {
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_generate(ctx, &A, o));
    return A;
}

static double value(const mg_matrix A, const void *v, uint64_t e) {
    if (v == NULL) return 1;
    return mg_matrix_values(A) == MG_VALUES_FLOAT ? ((const float *)v)[e] : ((const double *)v)[e];
}

/* The Laplacian's structure: diagonal `diag`, off-diagonal -1, symmetric (CSR == CSC), each row's
 * sum diag - neighbours, neighbours = `dims` * 2 inside the grid. Returns violations. */
static int check_stencil(const mg_matrix A, double diag) {
    const uint64_t *o, *co;
    const uint32_t *i, *ci;
    const void *v, *cv;
    int bad = 0;
    if (mg_matrix_csr(A, &o, &i, &v) != MG_SUCCESS) return 1;
    if (mg_matrix_csc(ctx, A, &co, &ci, &cv) != MG_SUCCESS) return 1;
    const uint32_t n = mg_matrix_rows(A);
    for (uint32_t r = 0; r <= n; r++) bad += o[r] != co[r];
    for (uint64_t e = 0; e < mg_matrix_nnz(A); e++) bad += i[e] != ci[e] || value(A, v, e) != value(A, cv, e);
    for (uint32_t r = 0; r < n; r++) {
        double sum = 0;
        int diagonal = 0;
        for (uint64_t e = o[r]; e < o[r + 1]; e++) {
            sum += value(A, v, e);
            if (i[e] == r) diagonal += value(A, v, e) == diag;
            else bad += value(A, v, e) != -1;
        }
        bad += diagonal != 1;
        bad += sum != diag - (double)(o[r + 1] - o[r] - 1);
    }
    return bad;
}

static void test_stencils(void) {
    mg_matrix_gen_options o = kind(MG_MATGEN_POISSON2D);
    o.side = 5;
    mg_matrix A = make(&o);
    CHECK(mg_matrix_rows(A) == 25 && mg_matrix_cols(A) == 25);
    CHECK(mg_matrix_nnz(A) == 5 * 25 - 4 * 5);
    CHECK(check_stencil(A, 4) == 0);
    /* (2,2) is the middle point 12: neighbours 7, 11, 13, 17 */
    const uint64_t *off;
    const uint32_t *idx;
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, NULL));
    CHECK(off[13] - off[12] == 5 && idx[off[12]] == 7 && idx[off[12] + 1] == 11 &&
          idx[off[12] + 2] == 12 && idx[off[12] + 3] == 13 && idx[off[12] + 4] == 17);
    mg_matrix_free(&A);

    o = kind(MG_MATGEN_POISSON3D);
    o.side = 4;
    A = make(&o);
    CHECK(mg_matrix_rows(A) == 64 && mg_matrix_nnz(A) == 7 * 64 - 6 * 16);
    CHECK(check_stencil(A, 6) == 0);
    mg_matrix_free(&A);
    o.side = 1; /* one point: a 1 x 1 matrix [6] */
    A = make(&o);
    CHECK(mg_matrix_rows(A) == 1 && mg_matrix_nnz(A) == 1);
    mg_matrix_free(&A);
    o.values = MG_VALUES_FLOAT;
    o.side = 3;
    A = make(&o);
    CHECK(mg_matrix_values(A) == MG_VALUES_FLOAT && check_stencil(A, 6) == 0);
    mg_matrix_free(&A);
}

static void test_random_kinds(void) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *v;
    int bad = 0;

    mg_matrix_gen_options o = kind(MG_MATGEN_BANDED);
    o.rows = 100;
    o.band = 3;
    mg_matrix A = make(&o);
    CHECK(mg_matrix_nnz(A) == 100 * 7 - 3 * 4);
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &v));
    for (uint32_t r = 0; r < 100; r++)
        for (uint64_t e = off[r]; e < off[r + 1]; e++) {
            bad += (idx[e] > r ? idx[e] - r : r - idx[e]) > 3;
            bad += !(value(A, v, e) >= 0.5 && value(A, v, e) < 1.5);
        }
    CHECK(bad == 0);
    mg_matrix_free(&A);

    o = kind(MG_MATGEN_BLOCK_DIAGONAL);
    o.rows = 100;
    o.block = 32;
    A = make(&o);
    CHECK(mg_matrix_nnz(A) == 3 * 32 * 32 + 4 * 4);
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &v));
    for (uint32_t r = 0; r < 100; r++) {
        bad += off[r + 1] - off[r] != (r < 96 ? 32u : 4u);
        for (uint64_t e = off[r]; e < off[r + 1]; e++) bad += idx[e] / 32 != r / 32;
    }
    CHECK(bad == 0);
    mg_matrix_free(&A);

    o = kind(MG_MATGEN_UNIFORM);
    o.rows = 1000;
    o.cols = 500;
    o.nnz_per_row = 8.5;
    o.values = MG_VALUES_NONE;
    A = make(&o);
    CHECK(mg_matrix_rows(A) == 1000 && mg_matrix_cols(A) == 500);
    CHECK(mg_matrix_values(A) == MG_VALUES_NONE);
    /* 8500 drawn; a repeated column in a row is summed into one entry (a few in 500 columns) */
    CHECK(mg_matrix_nnz(A) <= 8500 && mg_matrix_nnz(A) > 8300);
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &v));
    CHECK(v == NULL);
    uint32_t hit[500] = {0};
    for (uint32_t r = 0; r < 1000; r++) {
        bad += off[r + 1] - off[r] > 9 || off[r + 1] - off[r] < 6;
        for (uint64_t e = off[r]; e < off[r + 1]; e++) hit[idx[e]]++;
    }
    for (uint32_t c = 0; c < 500; c++) bad += hit[c] == 0 || hit[c] > 60; /* about 17 each */
    CHECK(bad == 0);
    mg_matrix_free(&A);

    o = kind(MG_MATGEN_RMAT);
    o.scale = 12;
    o.nnz_per_row = 8;
    A = make(&o);
    CHECK(mg_matrix_rows(A) == 4096 && mg_matrix_cols(A) == 4096);
    CHECK(mg_matrix_nnz(A) <= 8 * 4096 && mg_matrix_nnz(A) > 4 * 4096);
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &v));
    uint64_t longest = 0;
    for (uint32_t r = 0; r < 4096; r++) longest = off[r + 1] - off[r] > longest ? off[r + 1] - off[r] : longest;
    CHECK(longest > 20 * 8); /* skewed: R-MAT's first row gathers far more than the mean */
    /* duplicates summed: values are sums of draws in [0.5, 1.5), so at least 0.5 */
    for (uint64_t e = 0; e < mg_matrix_nnz(A); e++) bad += !(value(A, v, e) >= 0.5);
    CHECK(bad == 0);
    mg_matrix_free(&A);
}

/* CSR arrays equal, values bit for bit. */
static bool same_matrix(const mg_matrix A, const mg_matrix B) {
    const uint64_t *ao, *bo;
    const uint32_t *ai, *bi;
    const void *av, *bv;
    if (mg_matrix_rows(A) != mg_matrix_rows(B) || mg_matrix_nnz(A) != mg_matrix_nnz(B)) return false;
    mg_matrix_csr(A, &ao, &ai, &av);
    mg_matrix_csr(B, &bo, &bi, &bv);
    const size_t vb = mg_matrix_values(A) == MG_VALUES_DOUBLE ? 8 : 4;
    return memcmp(ao, bo, (mg_matrix_rows(A) + 1) * sizeof *ao) == 0 &&
           memcmp(ai, bi, mg_matrix_nnz(A) * sizeof *ai) == 0 &&
           (av == NULL ? bv == NULL : memcmp(av, bv, mg_matrix_nnz(A) * vb) == 0);
}

static void test_determinism(void) {
    const int saved = omp_get_max_threads();
    const mg_matrix_generator kinds[] = {MG_MATGEN_POISSON2D, MG_MATGEN_POISSON3D, MG_MATGEN_BANDED,
                                         MG_MATGEN_BLOCK_DIAGONAL, MG_MATGEN_UNIFORM, MG_MATGEN_RMAT};
    for (int k = 0; k < 6; k++) {
        mg_matrix_gen_options o = kind(kinds[k]);
        o.side = 150;      /* 22500 rows in 2D: several row chunks */
        o.rows = 30000;
        o.scale = 14;
        o.values = k % 2 ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
        omp_set_num_threads(1);
        mg_matrix A = make(&o);
        omp_set_num_threads(2);
        mg_matrix B = make(&o);
        omp_set_num_threads(3);
        mg_matrix C = make(&o);
        CHECK(same_matrix(A, B) && same_matrix(A, C));
        if (kinds[k] >= MG_MATGEN_BANDED) { /* the random kinds depend on the seed */
            o.seed = 2;
            mg_matrix D = make(&o);
            CHECK(!same_matrix(A, D));
            mg_matrix_free(&D);
        }
        mg_matrix_free(&A);
        mg_matrix_free(&B);
        mg_matrix_free(&C);
    }
    omp_set_num_threads(saved);
}

static void expect_error(const mg_matrix_gen_options *o, const char *needle) {
    mg_matrix A = (mg_matrix)(uintptr_t)1;
    CHECK(mg_matrix_generate(ctx, &A, o) == MG_INVALID_ARGUMENT);
    CHECK(A == NULL);
    if (strstr(mg_context_error(ctx), needle) == NULL) {
        fprintf(stderr, "message \"%s\" does not contain \"%s\"\n", mg_context_error(ctx), needle);
        CHECK(0);
    }
}

static void test_errors(void) {
    mg_matrix_gen_options o = kind(MG_MATGEN_POISSON3D);
    o.side = 1291; /* 1291^3 > 2^31 - 1 */
    expect_error(&o, "opts->side = 1291 makes side^3 rows");
    o.side = 4000000000u; /* side^3 would wrap 64 bits */
    expect_error(&o, "side^3 rows");
    o = kind(MG_MATGEN_POISSON2D);
    o.side = 0;
    expect_error(&o, "opts->side is 0");
    o.side = 46341; /* 46341^2 > 2^31 - 1 */
    expect_error(&o, "side^2 rows");
    o = kind(MG_MATGEN_BANDED);
    o.rows = 0;
    expect_error(&o, "opts->rows = 0");
    o = kind(MG_MATGEN_BLOCK_DIAGONAL);
    o.block = 0;
    expect_error(&o, "opts->block is 0");
    o = kind(MG_MATGEN_UNIFORM);
    o.nnz_per_row = NAN;
    expect_error(&o, "opts->nnz_per_row = nan");
    o.nnz_per_row = 5000; /* more than cols = 4096 */
    expect_error(&o, "opts->nnz_per_row = 5000");
    o = kind(MG_MATGEN_RMAT);
    o.scale = 31;
    expect_error(&o, "opts->scale = 31");
    o.scale = 10;
    o.nnz_per_row = -1;
    expect_error(&o, "opts->nnz_per_row = -1");
    o = kind((mg_matrix_generator)42);
    expect_error(&o, "opts->kind = 42");
    o = kind(MG_MATGEN_POISSON2D);
    o.values = (mg_values)9;
    expect_error(&o, "opts->values = 9");
    CHECK(mg_matrix_generate(ctx, NULL, &o) == MG_INVALID_ARGUMENT);
    mg_matrix A = NULL;
    CHECK(mg_matrix_generate(ctx, &A, NULL) == MG_INVALID_ARGUMENT);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    test_stencils();
    test_random_kinds();
    test_determinism();
    test_errors();
    mg_context_free(&ctx);
    return check_report();
}
