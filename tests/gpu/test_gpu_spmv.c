/*
 * test_gpu_spmv.c — the GPU SpMV (sparse/spmv_gpu.cu) against the CPU backend's mg_spmv and the
 * serial checker mg_check_spmv: every semiring, float and double, A and A^T, alpha/beta, on
 * matrices that reach each kernel path (short rows of every lane width, rows split into chunks, a single dense row of 100k entries, the diagonal and profile forms and matrices they refuse, hub-first columns on R-MAT) and the edge cases (rectangular, empty rows and columns, a
 * pattern, a float matrix used in double and the reverse). Also the cached device form
 * (mg_matrix_gpu_prepare) and the operands' residency. Exits 77 (skipped) where no GPU is usable.
 */
#include "gpu/gpu_test.h"

#include <math.h>

static mg_context cpu;

/* Coordinates being gathered for a test matrix, each value kept in both types. */
typedef struct {
    uint32_t *ri, *ci;
    double *vd;
    float *vf;
    uint64_t k;
} coords;

static coords coords_make(uint64_t most) {
    coords b = {malloc(most * 4 + 4), malloc(most * 4 + 4), malloc(most * 8 + 8), malloc(most * 4 + 4), 0};
    return b;
}

static void coords_add(coords *b, uint32_t i, uint32_t c, double v) {
    b->ri[b->k] = i;
    b->ci[b->k] = c;
    b->vd[b->k] = v;
    b->vf[b->k] = (float)v;
    b->k++;
}

/* The matrix of the gathered coordinates with values of type vt (duplicates summed); frees b. */
static mg_matrix coords_matrix(coords *b, uint32_t rows, uint32_t cols, mg_values vt) {
    mg_matrix A = NULL;
    const void *v = vt == MG_VALUES_DOUBLE ? (const void *)b->vd : vt == MG_VALUES_FLOAT ? (const void *)b->vf : NULL;
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &A, rows, cols, b->k, b->ri, b->ci, v, vt));
    free(b->ri);
    free(b->ci);
    free(b->vd);
    free(b->vf);
    return A;
}

/* A value of -1..1, about 1 in 10 an explicit zero (zeros stay stored): the banded and run
 * matrices' values (make_matrix draws its own, value first, as it always has: one-row-65 relies on
 * that sequence giving its 65 random columns distinct). */
static double test_value(void) { return next_rand() % 10 == 0 ? 0 : (next_rand() % 2000) / 1000.0 - 1.0; }

/* A rows x cols matrix from coordinates: row i has len(i) entries at random columns (duplicates
 * summed by the constructor), none in rows that are multiples of 7 nor in columns that are
 * multiples of 11 (empty rows and columns) but for a row of 50000 or more, which holds columns 0 to
 * len - 1. */
static mg_matrix make_matrix(uint32_t rows, uint32_t cols, uint32_t (*len)(uint32_t), mg_values vt) {
    uint64_t nnz = 0;
    for (uint32_t i = 0; i < rows; i++) nnz += i % 7 ? len(i) : 0;
    coords b = coords_make(nnz);
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t e = 0; i % 7 && e < len(i); e++) {
            uint32_t c = next_rand() % cols;
            if (c % 11 == 0) c = c + 1 < cols ? c + 1 : (c ? c - 1 : 0);
            if (len(i) >= 50000) c = e; /* a dense row: distinct columns, none summed away */
            double v = (next_rand() % 2000) / 1000.0 - 1.0;
            if (next_rand() % 10 == 0) v = 0; /* explicit zeros stay stored */
            coords_add(&b, i, c, v);
        }
    return coords_matrix(&b, rows, cols, vt);
}

static uint32_t len_3(uint32_t i) { return 1 + i % 5; }
static uint32_t len_12(uint32_t i) { return 4 + i % 17; }
static uint32_t len_60(uint32_t i) { return 40 + i % 41; }
/* mostly short rows, every 97th row long (split into chunks), one of 9000 entries */
static uint32_t len_mixed(uint32_t i) { return i == 500 ? 9000 : i % 97 == 1 ? 600 + i % 3000 : 2 + i % 9; }
/* mostly empty rows: one bucket of entries spans thousands of rows (the row blocks' row limit) */
static uint32_t len_rare(uint32_t i) { return i % 700 == 3 ? 5 : 0; }
/* short rows on average (stream blocks of over 128 rows, a lane a row), with rows of 17-416
 * entries among them (a warp each in pass 2), a stretch of 40-entry rows (blocks of fewer rows,
 * several lanes a row) and rows of 3000 (chunks), in a matrix large enough for the big buckets */
static uint32_t len_mostly_short(uint32_t i) {
    if (i % 5000 == 7) return 3000;
    if (i >= 100000 && i < 101000) return 40;
    return i % 211 == 5 ? 17 + i % 400 : 1 + i % 7;
}
/* the same with rows of 1000-1024 entries instead of 3000 (none over kLongRow: no chunks; blocks
 * of up to bucket + kLongRow entries and, among the short rows, of up to kStreamWideRows rows) */
static uint32_t len_mostly_mid(uint32_t i) { return i % 5000 == 7 ? 1000 + i % 25 : len_mostly_short(i); }
/* rows of 0..64 entries: the short form (no row over 64), at its edge */
static uint32_t len_upto64(uint32_t i) { return i % 65; }
/* the same with one row of 65 (row 778: make_matrix empties every 7th row): the general form */
static uint32_t len_one65(uint32_t i) { return i == 778 ? 65 : i % 65; }
/* rows of nearly one length (12-16; make_matrix empties every 7th row): the CSR-vector kernel */
static uint32_t len_even(uint32_t i) { return 12 + i % 5; }
/* one dense row of 100k entries beside short ones */
static uint32_t len_dense_row(uint32_t i) { return i == 1 ? 100000 : i % 3; }

/* A banded rows x cols matrix for the diagonal form: entries (i, i + d) for d in -3..3 and 50, with
 * holes (about 1 in 13 left out), about 1 in 10 an explicit zero; `far_row` (unless UINT32_MAX)
 * also gets one entry on a diagonal no sampled row has, which sends the matrix back to the CSR. */
static mg_matrix make_banded(uint32_t rows, uint32_t cols, mg_values vt, uint32_t far_row) {
    static const int diags[] = {-3, -2, -1, 0, 1, 2, 3, 50};
    coords b = coords_make((uint64_t)rows * 8 + 1);
    for (uint32_t i = 0; i < rows; i++)
        for (int d = 0; d < 8; d++) {
            const int64_t c = (int64_t)i + diags[d];
            if (c < 0 || c >= cols || ((uint64_t)i * 7 + (uint64_t)d) % 13 == 0) continue;
            coords_add(&b, i, (uint32_t)c, test_value());
        }
    if (far_row != UINT32_MAX) coords_add(&b, far_row, cols - 1, 0.5);
    return coords_matrix(&b, rows, cols, vt);
}

/* A rows x cols matrix for the profile form: blocks of 10-30 rows, each row of a block holding the
 * block's columns (one run; cut at cols, so the last rows may be shorter or empty), about 1 in 10
 * an explicit zero; `gap_row` (unless UINT32_MAX) loses its run's middle entry and `long_row` gets a
 * run of 2000 columns from 0: either sends the matrix back to the CSR. */
static mg_matrix make_runs(uint32_t rows, uint32_t cols, mg_values vt, uint32_t gap_row, uint32_t long_row) {
    uint64_t most = 2000;
    for (uint32_t i = 0, blk = 0; i < rows; blk++) {
        const uint32_t bs = 10 + blk % 21;
        most += (uint64_t)bs * bs;
        i += bs;
    }
    coords b = coords_make(most);
    for (uint32_t i0 = 0, blk = 0; i0 < rows; blk++) {
        const uint32_t bs = 10 + blk % 21;
        for (uint32_t i = i0; i < i0 + bs && i < rows; i++) {
            const uint32_t from = i == long_row ? 0 : i0, to = i == long_row ? 2000 : i0 + bs;
            for (uint32_t c = from; c < to && c < cols; c++)
                if (i != gap_row || c != (from + to) / 2) coords_add(&b, i, c, test_value());
        }
        i0 += bs;
    }
    return coords_matrix(&b, rows, cols, vt);
}

/* A band of 9 diagonals (-4..4) with no holes, so both the diagonal and the profile form are
 * candidates (every row one run); `shifted_row` (unless UINT32_MAX) has its run moved 20 columns
 * right, onto diagonals no sampled row has: the diagonal build misses it and the profile form is
 * taken instead. */
static mg_matrix make_band_runs(uint32_t rows, uint32_t cols, mg_values vt, uint32_t shifted_row) {
    coords b = coords_make((uint64_t)rows * 9 + 1);
    for (uint32_t i = 0; i < rows; i++)
        for (int d = -4; d <= 4; d++) {
            const int64_t c = (int64_t)i + d + (i == shifted_row ? 20 : 0);
            if (c >= 0 && c < cols) coords_add(&b, i, (uint32_t)c, test_value());
        }
    return coords_matrix(&b, rows, cols, vt);
}

static mg_matrix make_runs_gap(uint32_t rows, uint32_t cols, mg_values vt, uint32_t row) {
    return make_runs(rows, cols, vt, row, UINT32_MAX);
}
static mg_matrix make_runs_long(uint32_t rows, uint32_t cols, mg_values vt, uint32_t row) {
    return make_runs(rows, cols, vt, UINT32_MAX, row);
}

/* Random values of type t; about a third zeros so or-and sees both. */
static mg_dense make_dense(mg_context c, uint32_t n, mg_type t, const double *vals) {
    mg_dense X = NULL;
    CHECK_OK(c, mg_dense_create(c, &X, n, 1, t));
    void *buf = malloc((size_t)n * 8 + 8);
    for (uint32_t i = 0; i < n; i++) to_typed(t, buf, i, vals[i]);
    CHECK_OK(c, mg_dense_load(c, X, buf));
    free(buf);
    return X;
}

static void random_values(double *v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) v[i] = next_rand() % 3 == 0 ? 0 : (next_rand() % 2000) / 500.0 - 2.0;
}

static const char *const SEMIRINGS[] = {"plus-times", "min-plus", "max-times", "or-and"};

/* One product on both backends: the GPU result checked by mg_check_spmv and, for min, max and or
 * (whose results are one of the terms, so no summation order is involved), against the CPU's
 * within one rounding of the type (a term's own rounding may differ where A's values are converted).
 * Returns false on a failure. */
static bool one_case(const mg_matrix A, const char *name, mg_type t, mg_semiring sr, bool transpose,
                     double alpha, double beta) {
    const uint32_t nx = transpose ? mg_matrix_rows(A) : mg_matrix_cols(A);
    const uint32_t ny = transpose ? mg_matrix_cols(A) : mg_matrix_rows(A);
    double *xv = malloc((size_t)nx * 8 + 8), *yv = malloc((size_t)ny * 8 + 8);
    random_values(xv, nx);
    random_values(yv, ny);
    mg_dense xg = make_dense(ctx, nx, t, xv), yg = make_dense(ctx, ny, t, yv);
    mg_dense xc = make_dense(cpu, nx, t, xv), yc = make_dense(cpu, ny, t, yv);
    mg_dense yin = make_dense(cpu, ny, t, yv);
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    o.semiring = sr;
    o.transpose = transpose;
    o.alpha = alpha;
    o.beta = beta;
    const int before = check_failures_;
    CHECK_OK(ctx, mg_spmv(ctx, A, xg, yg, &o));
    CHECK(xg->on_device && yg->on_device); /* both stay there for the next call */
    CHECK_OK(cpu, mg_spmv(cpu, A, xc, yc, &o));
    CHECK_OK(cpu, mg_check_spmv(cpu, A, xc, beta != 0 ? yin : NULL, yg, &o));
    void *got = malloc((size_t)ny * 8 + 8), *want = malloc((size_t)ny * 8 + 8);
    CHECK_OK(ctx, mg_dense_extract(ctx, yg, got));
    CHECK_OK(cpu, mg_dense_extract(cpu, yc, want));
    int bad = 0;
    for (uint32_t i = 0; i < ny; i++) {
        const double g = from_typed(t, got, i), w = from_typed(t, want, i);
        const double tol = (t == MG_FLOAT ? 2e-7 : 4e-16) * fabs(w);
        const bool same = g == w || (isnan(g) && isnan(w)) || fabs(g - w) <= tol;
        if (sr != MG_SEMIRING_PLUS_TIMES && !same) {
            if (bad++ < 3)
                fprintf(stderr, "  %s %s %s%s alpha %g beta %g: y[%u] gpu %.9g cpu %.9g\n", name,
                        t == MG_FLOAT ? "float" : "double", SEMIRINGS[sr], transpose ? " A^T" : "",
                        alpha, beta, i, g, w);
        }
    }
    CHECK(bad == 0);
    if (check_failures_ != before)
        fprintf(stderr, "  case: %s %s %s%s alpha %g beta %g\n", name, t == MG_FLOAT ? "float" : "double",
                SEMIRINGS[sr], transpose ? " A^T" : "", alpha, beta);
    free(got);
    free(want);
    free(xv);
    free(yv);
    mg_dense_free(&xg);
    mg_dense_free(&yg);
    mg_dense_free(&xc);
    mg_dense_free(&yc);
    mg_dense_free(&yin);
    return check_failures_ == before;
}

/* Every semiring x type x orientation x alpha/beta (full), or plus-times and min-plus with the
 * defaults (a large matrix, where the serial checks dominate). */
static void sweep(const mg_matrix A, const char *name, bool full) {
    static const double plus_ab[][2] = {{1, 0}, {2.5, 0}, {0.5, -1.5}};
    static const double other_ab[][2] = {{1, 0}, {1, 1}};
    const mg_type types[] = {MG_FLOAT, MG_DOUBLE};
    for (int ti = 0; ti < 2; ti++)
        for (int tr = 0; tr < 2; tr++)
            for (int sr = 0; sr < 4; sr++) {
                if (!full && sr != MG_SEMIRING_PLUS_TIMES && sr != MG_SEMIRING_MIN_PLUS) continue;
                const int cases = !full ? 1 : sr == MG_SEMIRING_PLUS_TIMES ? 3 : 2;
                for (int c = 0; c < cases; c++) {
                    const double *ab = sr == MG_SEMIRING_PLUS_TIMES ? plus_ab[c] : other_ab[c];
                    if (!one_case(A, name, types[ti], (mg_semiring)sr, tr, ab[0], ab[1])) return;
                }
            }
}

/* The device form: built once, reused, its sizes and kernel reported. */
static void check_prepare(const mg_matrix A, const char *name, const char *kernel_has) {
    mg_gpu_matrix_info info;
    CHECK_OK(ctx, mg_matrix_gpu_prepare(ctx, A, &info));
    const void *form = A->gpu;
    CHECK(form != NULL);
    const uint64_t nnz = mg_matrix_nnz(A);
    const mg_values vt = mg_matrix_values(A);
    const size_t csr = ((size_t)mg_matrix_rows(A) + 1) * 8 + nnz * 4 +
                       nnz * (vt == MG_VALUES_NONE ? 0 : vt == MG_VALUES_FLOAT ? 4 : 8);
    CHECK(info.csr_bytes == csr);
    CHECK(info.device_bytes >= csr);
    CHECK(info.seconds >= 0 && info.upload_seconds >= 0);
    CHECK(strstr(info.kernel, kernel_has) != NULL);
    printf("%s: %u x %u, %llu entries: kernel %s, %zu device bytes (CSR %zu), build %.3f ms, upload %.3f ms\n",
           name, mg_matrix_rows(A), mg_matrix_cols(A), (unsigned long long)nnz, info.kernel,
           info.device_bytes, info.csr_bytes, info.seconds * 1e3, info.upload_seconds * 1e3);
    CHECK_OK(ctx, mg_matrix_gpu_prepare(ctx, A, &info));
    CHECK(A->gpu == form);
}

/* Whether A's device form numbers its columns hub-first. */
static bool hub_first(const mg_matrix A) {
    mg_gpu_matrix_info info;
    CHECK_OK(ctx, mg_matrix_gpu_prepare(ctx, A, &info));
    return strstr(info.kernel, "hub-first") != NULL;
}

/* y = A x, then y = A x + y with y already on the device: twice the first product. */
static void check_resident_accumulate(const mg_matrix A) {
    const uint32_t n = mg_matrix_cols(A), m = mg_matrix_rows(A);
    double *xv = malloc((size_t)n * 8 + 8), *zero = calloc((size_t)m + 1, 8);
    random_values(xv, n);
    mg_dense x = make_dense(ctx, n, MG_DOUBLE, xv), y = make_dense(ctx, m, MG_DOUBLE, zero);
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    CHECK_OK(ctx, mg_spmv(ctx, A, x, y, &o));
    double *once = malloc((size_t)m * 8 + 8), *twice = malloc((size_t)m * 8 + 8);
    CHECK_OK(ctx, mg_dense_extract(ctx, y, once));
    CHECK_OK(ctx, mg_spmv(ctx, A, x, y, &o)); /* y back on the host now: beta 0 does not upload */
    o.beta = 1;
    CHECK_OK(ctx, mg_spmv(ctx, A, x, y, &o));
    CHECK_OK(ctx, mg_dense_extract(ctx, y, twice));
    int bad = 0;
    for (uint32_t i = 0; i < m; i++) bad += twice[i] != 2 * once[i];
    CHECK(bad == 0);
    free(xv);
    free(zero);
    free(once);
    free(twice);
    mg_dense_free(&x);
    mg_dense_free(&y);
}

/* A hole of the diagonal form is no entry: x = 1 but inf at a column that row r's diagonal passes
 * without an entry there (make_banded leaves (i, i + d) out where (7 i + d) % 13 == 0), so y[r] is
 * finite, as the CPU's CSR gives it, in every semiring. */
static void check_diag_hole(const mg_matrix A) {
    const uint32_t m = mg_matrix_rows(A), n = mg_matrix_cols(A);
    uint32_t r = 1000;
    while (((uint64_t)r * 7 + 4) % 13 != 0) r++; /* d = 4 is diagonal +1 (diags[4]) */
    double *xv = malloc((size_t)n * 8 + 8);
    for (uint32_t j = 0; j < n; j++) xv[j] = 1;
    xv[r + 1] = INFINITY;
    for (int sr = 0; sr < 4; sr++) {
        mg_dense xg = make_dense(ctx, n, MG_DOUBLE, xv), xc = make_dense(cpu, n, MG_DOUBLE, xv);
        mg_dense yg = NULL, yc = NULL;
        CHECK_OK(ctx, mg_dense_create(ctx, &yg, m, 1, MG_DOUBLE));
        CHECK_OK(cpu, mg_dense_create(cpu, &yc, m, 1, MG_DOUBLE));
        mg_spmv_options o;
        mg_spmv_options_init(&o);
        o.semiring = (mg_semiring)sr;
        CHECK_OK(ctx, mg_spmv(ctx, A, xg, yg, &o));
        CHECK_OK(cpu, mg_spmv(cpu, A, xc, yc, &o));
        double *g = malloc((size_t)m * 8), *c = malloc((size_t)m * 8);
        CHECK_OK(ctx, mg_dense_extract(ctx, yg, g));
        CHECK_OK(cpu, mg_dense_extract(cpu, yc, c));
        CHECK(isfinite(c[r]) && isfinite(g[r]));
        CHECK(fabs(g[r] - c[r]) <= 1e-12 * (1 + fabs(c[r])));
        free(g);
        free(c);
        mg_dense_free(&xg);
        mg_dense_free(&xc);
        mg_dense_free(&yg);
        mg_dense_free(&yc);
    }
    free(xv);
}

/* Eight products chained on the device (x2 = A x1, x1 = A x2, ...) with no wait between calls,
 * since mg_spmv returns once queued: each must see the one before it. Compared with the same chain on
 * the CPU after mg_context_finish. A square matrix. */
static void check_chained(const mg_matrix A) {
    const uint32_t n = mg_matrix_rows(A);
    double *v = malloc((size_t)n * 8 + 8), *g = malloc((size_t)n * 8 + 8), *c = malloc((size_t)n * 8 + 8);
    random_values(v, n);
    mg_dense gx[2] = {make_dense(ctx, n, MG_DOUBLE, v), make_dense(ctx, n, MG_DOUBLE, v)};
    mg_dense cx[2] = {make_dense(cpu, n, MG_DOUBLE, v), make_dense(cpu, n, MG_DOUBLE, v)};
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    o.alpha = 0.25; /* keeps the values in range over the chain */
    for (int k = 0; k < 8; k++) {
        CHECK_OK(ctx, mg_spmv(ctx, A, gx[k & 1], gx[!(k & 1)], &o));
        CHECK_OK(cpu, mg_spmv(cpu, A, cx[k & 1], cx[!(k & 1)], &o));
    }
    CHECK_OK(ctx, mg_context_finish(ctx));
    CHECK_OK(ctx, mg_dense_extract(ctx, gx[0], g));
    CHECK_OK(cpu, mg_dense_extract(cpu, cx[0], c));
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) bad += fabs(g[i] - c[i]) > 1e-9 * (1 + fabs(c[i]));
    CHECK(bad == 0);
    free(v);
    free(g);
    free(c);
    for (int k = 0; k < 2; k++) {
        mg_dense_free(&gx[k]);
        mg_dense_free(&cx[k]);
    }
}

int main(void) {
    mg__gpu_info info;
    const int early = gpu_test_start(&info);
    if (early >= 0) return early;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
    CHECK_OK(ctx, mg_context_create(&cpu));
    printf("device: %s\n", info.name);

    struct {
        const char *name;
        uint32_t rows, cols;
        uint32_t (*len)(uint32_t);
        mg_values vt;
        const char *kernel;
    } cases[] = {
        {"rect-short", 300, 517, len_3, MG_VALUES_DOUBLE, "csr-stream"},
        {"rect-short-float", 517, 300, len_3, MG_VALUES_FLOAT, "csr-stream"},
        {"pattern", 400, 400, len_12, MG_VALUES_NONE, "csr-stream"},
        {"wide-rows", 700, 5000, len_60, MG_VALUES_DOUBLE, "csr-stream"},
        {"mixed-split", 20000, 30000, len_mixed, MG_VALUES_FLOAT, "+split"},
        {"dense-row", 5, 120000, len_dense_row, MG_VALUES_DOUBLE, "+split"},
        {"rare-rows", 6000, 900, len_rare, MG_VALUES_DOUBLE, "csr-stream"},
        {"mostly-short", 200000, 250000, len_mostly_short, MG_VALUES_DOUBLE, "+split"},
        {"mostly-short-float", 200000, 250000, len_mostly_short, MG_VALUES_FLOAT, "+split"},
        {"short-form", 20000, 23000, len_upto64, MG_VALUES_DOUBLE, "csr-pipelined"},
        {"short-form-float", 23000, 20000, len_upto64, MG_VALUES_FLOAT, "csr-pipelined"},
        {"one-row-65", 20000, 20000, len_one65, MG_VALUES_FLOAT, "csr-stream"},
        {"mostly-mid", 200000, 250000, len_mostly_mid, MG_VALUES_DOUBLE, "csr-stream"},
        {"mostly-mid-float", 250000, 200000, len_mostly_mid, MG_VALUES_FLOAT, "csr-stream"},
        {"even-rows", 30000, 40000, len_even, MG_VALUES_DOUBLE, "csr-vector"},
        {"even-rows-float", 40000, 30000, len_even, MG_VALUES_FLOAT, "csr-vector"},
        {"even-rows-pattern", 30000, 30000, len_even, MG_VALUES_NONE, "csr-vector"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mg_matrix A = make_matrix(cases[c].rows, cases[c].cols, cases[c].len, cases[c].vt);
        if (A == NULL) continue;
        check_prepare(A, cases[c].name, cases[c].kernel);
        sweep(A, cases[c].name, !small_mode || c < 3);
        if (c == 0) check_resident_accumulate(A);
        if (cases[c].rows == cases[c].cols) check_chained(A);
        mg_matrix_free(&A);
    }

    /* the diagonal form: banded, with holes and explicit zeros, square and rectangular, each value
     * type and a pattern (A^T is banded too: its CSC takes the form as well), and the same matrix
     * with one entry off its diagonals in a row the sample skips, which the build finds (the CSR);
     * the profile form: rows of one run each, square, rectangular (rows past the last column
     * empty), a pattern; a gap in a row the sample skips, and a row 100x the mean, keep the CSR;
     * a band that both forms could take, as diagonals, and with one row off them, as runs.
     * The first of each family also gets the full sweep under compute-sanitizer and the residency
     * checks, the banded one the hole check. */
    struct {
        const char *name;
        mg_matrix (*make)(uint32_t rows, uint32_t cols, mg_values vt, uint32_t row);
        uint32_t rows, cols;
        mg_values vt;
        uint32_t row; /* the row that spoils the form, or UINT32_MAX */
        const char *kernel;
        bool first;
    } formed[] = {
        {"diag-square", make_banded, 40000, 40000, MG_VALUES_DOUBLE, UINT32_MAX, "diagonal (8)", true},
        {"diag-tall-float", make_banded, 40000, 39000, MG_VALUES_FLOAT, UINT32_MAX, "diagonal (8)", false},
        {"diag-wide-pattern", make_banded, 33000, 80000, MG_VALUES_NONE, UINT32_MAX, "diagonal (8)", false},
        {"diag-one-off", make_banded, 40000, 40000, MG_VALUES_DOUBLE, 1, "csr-", false},
        {"profile-square", make_runs_gap, 30000, 30000, MG_VALUES_DOUBLE, UINT32_MAX, "profile", true},
        {"profile-tall-float", make_runs_gap, 40000, 35000, MG_VALUES_FLOAT, UINT32_MAX, "profile", false},
        {"profile-pattern", make_runs_gap, 30000, 30000, MG_VALUES_NONE, UINT32_MAX, "profile", false},
        {"profile-one-gap", make_runs_gap, 30000, 30000, MG_VALUES_DOUBLE, 1, "csr-", false},
        {"profile-long-row", make_runs_long, 30000, 30000, MG_VALUES_FLOAT, 7, "csr-", false},
        {"band-runs", make_band_runs, 40000, 40000, MG_VALUES_FLOAT, UINT32_MAX, "diagonal (9)", false},
        {"band-runs-shifted", make_band_runs, 40000, 40000, MG_VALUES_DOUBLE, 1, "profile", false},
    };
    for (size_t c = 0; c < sizeof formed / sizeof formed[0]; c++) {
        mg_matrix A = formed[c].make(formed[c].rows, formed[c].cols, formed[c].vt, formed[c].row);
        if (A == NULL) continue;
        check_prepare(A, formed[c].name, formed[c].kernel);
        sweep(A, formed[c].name, !small_mode || formed[c].first);
        if (formed[c].first) {
            if (formed[c].make == make_banded) check_diag_hole(A);
            check_resident_accumulate(A);
            check_chained(A);
        }
        mg_matrix_free(&A);
    }

    /* generated matrices: a 2D stencil (its diagonals) and a uniform one (40 a row: CSR-vector) */
    mg_matrix_gen_options go;
    mg_matrix_gen_options_init(&go);
    go.kind = MG_MATGEN_POISSON2D;
    go.side = small_mode ? 100 : 700;
    mg_matrix P = NULL;
    CHECK_OK(cpu, mg_matrix_generate(cpu, &P, &go));
    if (P != NULL) {
        check_prepare(P, "poisson2d", small_mode ? "csr-" : "diagonal (5)");
        sweep(P, "poisson2d", false);
        mg_matrix_free(&P);
    }
    mg_matrix_gen_options_init(&go);
    go.kind = MG_MATGEN_UNIFORM;
    go.rows = small_mode ? 5000 : 200000;
    go.cols = small_mode ? 7000 : 300000;
    go.nnz_per_row = 40;
    go.values = MG_VALUES_FLOAT;
    mg_matrix U = NULL;
    CHECK_OK(cpu, mg_matrix_generate(cpu, &U, &go));
    if (U != NULL) {
        check_prepare(U, "uniform", small_mode ? "csr-" : "csr-vector");
        sweep(U, "uniform", false);
        mg_matrix_free(&U);
    }

    /* hub-first columns (form_hub_first): R-MAT 22 x 8 (33M entries) in float and as a pattern takes
     * them, A and A^T (its CSC is as skewed), checked under compute-sanitizer too; the same in double
     * does not (float products only), nor do 26M entries at uniformly random columns (no hubs) */
    mg_matrix_gen_options_init(&go);
    go.kind = MG_MATGEN_RMAT;
    go.scale = 22;
    go.nnz_per_row = 8;
    const mg_values rmat_values[] = {MG_VALUES_FLOAT, MG_VALUES_NONE, MG_VALUES_DOUBLE};
    const char *const rmat_names[] = {"rmat-float", "rmat-pattern", "rmat-double"};
    for (int v = 0; v < (small_mode ? 1 : 3); v++) {
        go.values = rmat_values[v];
        mg_matrix R = NULL;
        CHECK_OK(cpu, mg_matrix_generate(cpu, &R, &go));
        if (R == NULL) continue;
        check_prepare(R, rmat_names[v], v < 2 ? "+hub-first" : "csr-stream");
        CHECK(v < 2 || !hub_first(R));
        sweep(R, rmat_names[v], v == 0 && !small_mode);
        mg_matrix_free(&R);
    }
    if (!small_mode) {
        mg_matrix M = make_matrix(5000000, 5000000, len_mostly_short, MG_VALUES_FLOAT);
        if (M != NULL) {
            CHECK(mg_matrix_nnz(M) >= (24u << 20));
            check_prepare(M, "random-columns", "csr-stream");
            CHECK(!hub_first(M));
            sweep(M, "random-columns", false);
            mg_matrix_free(&M);
        }
    }

    mg_context_free(&cpu);
    mg_context_free(&ctx);
    return check_report();
}
