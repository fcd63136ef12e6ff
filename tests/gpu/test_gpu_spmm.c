/*
 * test_gpu_spmm.c — the GPU SpMM and SDDMM (sparse/spmm_gpu.cu) against the CPU backend and the
 * serial checkers mg_check_spmm / mg_check_sddmm: K across the lane widths and their tails (1, 2,
 * 31, 32, 33, 64, 96, 128, 130, 512), float and double, pattern / float / double values, A and A^T,
 * alpha/beta, rectangular matrices with empty rows and columns, long rows split into segments (rows
 * of 100 to 159 entries about the form's limit, of 600 to 9000, a dense row of 100k entries), and
 * generated matrices whose SpMM form has dense tiles, a row-wise remainder or both (the form's
 * report, mg_matrix_gpu_prepare_spmm, says which and is built once); TF32 products (opts.tf32) on
 * the windows where the rule takes them and the exact kernels where it does not.
 * Also chained products with no wait between them. Exits 77 (skipped) where no GPU is usable.
 */
#include "gpu/gpu_test.h"

#include <math.h>

static mg_context cpu;

/* As test_gpu_spmv.c: row i has len(i) random entries, none in rows that are multiples of 7 nor in
 * columns that are multiples of 11, a row of 50000 or more holds columns 0 to len - 1. */
static mg_matrix make_matrix(uint32_t rows, uint32_t cols, uint32_t (*len)(uint32_t), mg_values vt) {
    uint64_t nnz = 0;
    for (uint32_t i = 0; i < rows; i++) nnz += i % 7 ? len(i) : 0;
    uint32_t *ri = malloc(nnz * 4 + 4), *ci = malloc(nnz * 4 + 4);
    double *vd = malloc(nnz * 8 + 8);
    float *vf = malloc(nnz * 4 + 4);
    uint64_t k = 0;
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t e = 0; i % 7 && e < len(i); e++, k++) {
            uint32_t c = next_rand() % cols;
            if (c % 11 == 0) c = c + 1 < cols ? c + 1 : (c ? c - 1 : 0);
            if (len(i) >= 50000) c = e;
            ri[k] = i;
            ci[k] = c;
            vd[k] = (next_rand() % 2000) / 1000.0 - 1.0;
            vf[k] = (float)vd[k];
        }
    mg_matrix A = NULL;
    const void *v = vt == MG_VALUES_DOUBLE ? (const void *)vd : vt == MG_VALUES_FLOAT ? (const void *)vf : NULL;
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &A, rows, cols, nnz, ri, ci, v, vt));
    free(ri);
    free(ci);
    free(vd);
    free(vf);
    return A;
}

static uint32_t len_3(uint32_t i) { return 1 + i % 5; }
static uint32_t len_12(uint32_t i) { return 4 + i % 17; }
/* short rows, every 97th long (segments), one of 9000 entries */
static uint32_t len_mixed(uint32_t i) { return i == 500 ? 9000 : i % 97 == 1 ? 600 + i % 3000 : 2 + i % 9; }
static uint32_t len_dense_row(uint32_t i) { return i == 1 ? 100000 : i % 3; }
/* rows of 100 to 159 entries: both sides of the SpMM form's 128-entry limit (segments of 128 from
 * 129 on, a part segment after), and a panel warp's 8 rows one stream of many 32-entry batches */
static uint32_t len_medium(uint32_t i) { return 100 + i * 37 % 60; }
/* short rows, every 41st of 129 to 828 entries: past the panels' 128-entry limit (segments); the
 * row groups' kernel (csr-groups) takes those to 256 whole and gives the longer a block each */
static uint32_t len_some_long(uint32_t i) { return i % 41 == 3 ? 129 + i % 700 : 1 + i % 7; }

/* rows x cols random values in [-2, 2), some zeros, on context c. */
static mg_dense random_dense(mg_context c, uint32_t rows, uint32_t cols, mg_type t, double *vals) {
    const size_t n = (size_t)rows * cols;
    for (size_t i = 0; i < n; i++) vals[i] = next_rand() % 5 == 0 ? 0 : (next_rand() % 2000) / 500.0 - 2.0;
    mg_dense X = NULL;
    CHECK_OK(c, mg_dense_create(c, &X, rows, cols, t));
    void *buf = malloc(n * 8 + 8);
    for (size_t i = 0; i < n; i++) to_typed(t, buf, i, vals[i]);
    CHECK_OK(c, mg_dense_load(c, X, buf));
    free(buf);
    return X;
}

static mg_dense copy_dense(mg_context c, uint32_t rows, uint32_t cols, mg_type t, const double *vals) {
    const size_t n = (size_t)rows * cols;
    mg_dense X = NULL;
    CHECK_OK(c, mg_dense_create(c, &X, rows, cols, t));
    void *buf = malloc(n * 8 + 8);
    for (size_t i = 0; i < n; i++) to_typed(t, buf, i, vals[i]);
    CHECK_OK(c, mg_dense_load(c, X, buf));
    free(buf);
    return X;
}

/* The GPU's X and the CPU's Y agree within eps of the largest magnitude (the checkers hold the
 * strict per-entry rule; this catches a result the checker and CPU agree on but the GPU does not);
 * tf32: the GPU's float products may be TF32's, eps 2e-3. */
static int count_off(const mg_dense X, const mg_dense Y, mg_type t, bool tf32, const char *what) {
    const size_t n = (size_t)mg_dense_rows(X) * mg_dense_cols(X);
    void *g = malloc(n * 8 + 8), *w = malloc(n * 8 + 8);
    CHECK_OK(ctx, mg_dense_extract(ctx, X, g));
    CHECK_OK(cpu, mg_dense_extract(cpu, Y, w));
    double scale = 1;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(from_typed(t, w, i)));
    const double eps = (t == MG_FLOAT ? (tf32 ? 2e-3 : 1e-4) : 1e-10) * scale;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double a = from_typed(t, g, i), b = from_typed(t, w, i);
        if (!(fabs(a - b) <= eps)) {
            if (bad < 3) fprintf(stderr, "  %s: entry %zu gpu %.9g cpu %.9g\n", what, i, a, b);
            bad++;
        }
    }
    free(g);
    free(w);
    return bad;
}

/* C = alpha op(A) B + beta C on the GPU (options o) against the CPU and mg_check_spmm. */
static void spmm_run(const mg_matrix A, const char *name, mg_type t, uint32_t K, const mg_spmm_options *po) {
    const mg_spmm_options o = *po;
    const bool transpose = o.transpose;
    const double alpha = o.alpha, beta = o.beta;
    const uint32_t nb = transpose ? mg_matrix_rows(A) : mg_matrix_cols(A);
    const uint32_t nc = transpose ? mg_matrix_cols(A) : mg_matrix_rows(A);
    double *bv = malloc((size_t)nb * K * 8 + 8), *cv = malloc((size_t)nc * K * 8 + 8);
    mg_dense Bg = random_dense(ctx, nb, K, t, bv), Cg = random_dense(ctx, nc, K, t, cv);
    mg_dense Bc = copy_dense(cpu, nb, K, t, bv), Cc = copy_dense(cpu, nc, K, t, cv);
    mg_dense Cin = copy_dense(cpu, nc, K, t, cv);
    char what[160];
    snprintf(what, sizeof what, "spmm %s %s K %u%s alpha %g beta %g%s", name,
             t == MG_FLOAT ? "float" : "double", K, transpose ? " A^T" : "", alpha, beta,
             o.tf32 ? " tf32" : "");
    const int before = check_failures_;
    CHECK_OK(ctx, mg_spmm(ctx, A, Bg, Cg, &o));
    CHECK(Bg->on_device && Cg->on_device);
    CHECK_OK(cpu, mg_spmm(cpu, A, Bc, Cc, &o));
    CHECK_OK(cpu, mg_check_spmm(cpu, A, Bc, beta != 0 ? Cin : NULL, Cg, &o));
    CHECK(count_off(Cg, Cc, t, o.tf32, what) == 0);
    if (check_failures_ != before) fprintf(stderr, "  case: %s\n", what);
    mg_dense_free(&Bg);
    mg_dense_free(&Cg);
    mg_dense_free(&Bc);
    mg_dense_free(&Cc);
    mg_dense_free(&Cin);
    free(bv);
    free(cv);
}

static void spmm_case(const mg_matrix A, const char *name, mg_type t, uint32_t K, bool transpose,
                      double alpha, double beta) {
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    o.transpose = transpose;
    o.alpha = alpha;
    o.beta = beta;
    spmm_run(A, name, t, K, &o);
}

static void sddmm_case(const mg_matrix S, const char *name, mg_type t, uint32_t K, double alpha,
                       double beta) {
    const uint32_t rows = mg_matrix_rows(S), cols = mg_matrix_cols(S);
    const uint32_t nnz = (uint32_t)mg_matrix_nnz(S);
    double *av = malloc((size_t)rows * K * 8 + 8), *bv = malloc((size_t)cols * K * 8 + 8);
    double *cv = malloc((size_t)nnz * 8 + 8);
    mg_dense Ag = random_dense(ctx, rows, K, t, av), Bg = random_dense(ctx, cols, K, t, bv);
    mg_dense Cg = random_dense(ctx, nnz, 1, t, cv);
    mg_dense Ac = copy_dense(cpu, rows, K, t, av), Bc = copy_dense(cpu, cols, K, t, bv);
    mg_dense Cc = copy_dense(cpu, nnz, 1, t, cv), Cin = copy_dense(cpu, nnz, 1, t, cv);
    mg_sddmm_options o;
    mg_sddmm_options_init(&o);
    o.alpha = alpha;
    o.beta = beta;
    char what[160];
    snprintf(what, sizeof what, "sddmm %s %s K %u alpha %g beta %g", name,
             t == MG_FLOAT ? "float" : "double", K, alpha, beta);
    const int before = check_failures_;
    CHECK_OK(ctx, mg_sddmm(ctx, S, Ag, Bg, Cg, &o));
    CHECK(Cg->on_device);
    CHECK_OK(cpu, mg_sddmm(cpu, S, Ac, Bc, Cc, &o));
    CHECK_OK(cpu, mg_check_sddmm(cpu, S, Ac, Bc, beta != 0 ? Cin : NULL, Cg, &o));
    CHECK(count_off(Cg, Cc, t, false, what) == 0);
    if (check_failures_ != before) fprintf(stderr, "  case: %s\n", what);
    mg_dense_free(&Ag);
    mg_dense_free(&Bg);
    mg_dense_free(&Cg);
    mg_dense_free(&Ac);
    mg_dense_free(&Bc);
    mg_dense_free(&Cc);
    mg_dense_free(&Cin);
    free(av);
    free(bv);
    free(cv);
}

/* Every K of ks in both types, both orientations, two alpha/beta pairs; the SDDMM likewise. */
static void sweep(const mg_matrix A, const char *name, const uint32_t *ks, int nk) {
    static const mg_type types[] = {MG_FLOAT, MG_DOUBLE};
    for (int i = 0; i < nk; i++)
        for (int ti = 0; ti < 2; ti++) {
            const bool full = !small_mode || i == 0;
            spmm_case(A, name, types[ti], ks[i], false, 1, 0);
            if (full) spmm_case(A, name, types[ti], ks[i], true, -0.5, 2);
            sddmm_case(A, name, types[ti], ks[i], 1, 0);
            if (full) sddmm_case(A, name, types[ti], ks[i], 0.75, -1);
        }
}

/* The form is reported and built once: a second prepare adds no build time nor bytes. want: parts
 * the kernel name must hold; refuse: one it must not (NULL: none). */
static void check_prepare(const mg_matrix A, const char *name, const char *const *want, int nwant,
                          const char *refuse) {
    mg_gpu_matrix_info a, b;
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 0, NULL, &a));
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 0, NULL, &b));
    printf("%s: %s, form %.3f ms, upload %.3f ms, %zu device bytes (CSR %zu)\n", name, a.kernel,
           a.seconds * 1e3, a.upload_seconds * 1e3, a.device_bytes, a.csr_bytes);
    CHECK(a.seconds > 0 && a.seconds == b.seconds);
    CHECK(a.device_bytes > a.csr_bytes && a.device_bytes == b.device_bytes);
    CHECK(strncmp(a.kernel, "aspt", 4) == 0);
    for (int i = 0; i < nwant; i++) {
        CHECK(strstr(a.kernel, want[i]) != NULL);
        if (strstr(a.kernel, want[i]) == NULL) fprintf(stderr, "  %s: %s lacks %s\n", name, a.kernel, want[i]);
    }
    if (refuse != NULL) CHECK(strstr(a.kernel, refuse) == NULL);
}

/* The row groups' list of long rows made on the device: a matrix of more rows than the host scans
 * (16384, kHostScanRows) with rows over 128 entries. Its kernel names the count taken from the
 * CSR, and products by A and by A^T (whose CSC is listed the same way) are checked. */
static void check_long_rows_device(void) {
    mg_matrix_gen_options go;
    mg_matrix_gen_options_init(&go);
    go.kind = MG_MATGEN_RMAT;
    go.values = MG_VALUES_FLOAT;
    go.scale = 15;
    go.nnz_per_row = 8;
    mg_matrix A = NULL;
    CHECK_OK(cpu, mg_matrix_generate(cpu, &A, &go));
    if (A == NULL) return;
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &val));
    uint32_t over = 0;
    for (uint32_t i = 0; i < mg_matrix_rows(A); i++) over += off[i + 1] - off[i] > 128;
    mg_gpu_matrix_info a;
    char want[80];
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 32, NULL, &a));
    printf("long rows (device list): K 32 %s\n", a.kernel);
    snprintf(want, sizeof want, "csr-groups (8 lanes; %u rows a block)", over); /* 32768 rows: a group a row */
    CHECK(mg_matrix_rows(A) > 16384 && over > 0 && strcmp(a.kernel, want) == 0);
    spmm_case(A, "long rows (device list)", MG_FLOAT, 32, false, 1, 0);
    spmm_case(A, "long rows (device list)", MG_FLOAT, 32, true, -0.5, 2);
    /* over 8192 rows a split K takes 4 vectors a lane: K 128 and 96 (lanes past K) */
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 128, NULL, &a));
    printf("long rows (device list): K 128 %s\n", a.kernel);
    snprintf(want, sizeof want, "csr-groups (8 lanes of 4 vectors; %u rows a block)", over);
    CHECK(strcmp(a.kernel, want) == 0);
    spmm_case(A, "long rows (device list)", MG_FLOAT, 128, false, 1, 0);
    spmm_case(A, "long rows (device list)", MG_DOUBLE, 96, false, 1, 0.5);
    spmm_case(A, "long rows (device list)", MG_FLOAT, 96, true, 2, 0);
    mg_matrix_free(&A);
}

/* The form built in parts (the row groups need neither segments nor panels: both are built when a
 * call needs the panels), on a fresh matrix of short rows and some of 129-828 entries (float
 * values): prepared for K 32 it names the row groups' kernel (no segments) and holds no tiles;
 * products that need the panels build them then; prepared for every K it holds more. Every
 * product checked. */
static void check_parts(void) {
    mg_matrix A = make_matrix(2000, 2000, len_some_long, MG_VALUES_FLOAT);
    mg_gpu_matrix_info a, b, c;
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    CHECK_OK(ctx, mg_matrix_csr(A, &off, &idx, &val));
    uint32_t over = 0; /* rows of more than 128 entries (duplicates merged): a block each */
    for (uint32_t i = 0; i < 2000; i++) over += off[i + 1] - off[i] > 128;
    char want[80];
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 32, NULL, &a));
    printf("parts: K 32 %s, %zu device bytes\n", a.kernel, a.device_bytes);
    snprintf(want, sizeof want, "csr-groups (8 lanes x4; %u rows a block)", over); /* 2000 rows: 4 groups a row */
    CHECK(over > 0 && strcmp(a.kernel, want) == 0);
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 128, NULL, &b)); /* K split over blocks: no panels */
    /* K split in 4 chunks (2000 rows: one vector a lane): 64000 lanes with 2 groups a row; the
     * list of long rows made once */
    snprintf(want, sizeof want, "csr-groups (8 lanes x2; %u rows a block)", over);
    CHECK(strcmp(b.kernel, want) == 0 && b.device_bytes == a.device_bytes);
    spmm_case(A, "parts", MG_FLOAT, 32, false, 1, 0);
    spmm_case(A, "parts", MG_DOUBLE, 32, true, 1, 0.5);
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 32, NULL, &b));
    CHECK(b.device_bytes > a.device_bytes); /* the CSC's form and the double values */
    spmm_case(A, "parts", MG_FLOAT, 130, false, -1, 0);  /* the panels (K not a multiple of 4), built here */
    sddmm_case(A, "parts", MG_FLOAT, 32, 1, 0);
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 0, NULL, &c));
    printf("parts: every K %s, %zu device bytes\n", c.kernel, c.device_bytes);
    CHECK(strncmp(c.kernel, "aspt", 4) == 0 && c.device_bytes > b.device_bytes && c.seconds > b.seconds);
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, 130, NULL, &b));
    CHECK(strncmp(b.kernel, "aspt", 4) == 0 && b.device_bytes == c.device_bytes && b.seconds == c.seconds);
    mg_matrix_free(&A);
}

/* X1 = A X0, X0 = A X1, ... with no wait between the calls (each call's C is the next one's B),
 * against the same chain on the CPU. */
static void check_chained(const mg_matrix A, uint32_t K) {
    const uint32_t n = mg_matrix_rows(A);
    double *v = malloc((size_t)n * K * 8 + 8);
    mg_dense gx[2], cx[2];
    gx[0] = random_dense(ctx, n, K, MG_DOUBLE, v);
    cx[0] = copy_dense(cpu, n, K, MG_DOUBLE, v);
    gx[1] = copy_dense(ctx, n, K, MG_DOUBLE, v);
    cx[1] = copy_dense(cpu, n, K, MG_DOUBLE, v);
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    o.alpha = 0.25; /* keeps the values in range over the chain */
    for (int k = 0; k < 6; k++) {
        CHECK_OK(ctx, mg_spmm(ctx, A, gx[k & 1], gx[!(k & 1)], &o));
        CHECK_OK(cpu, mg_spmm(cpu, A, cx[k & 1], cx[!(k & 1)], &o));
    }
    CHECK_OK(ctx, mg_context_finish(ctx));
    CHECK(count_off(gx[0], cx[0], MG_DOUBLE, false, "chained") == 0);
    for (int k = 0; k < 2; k++) {
        mg_dense_free(&gx[k]);
        mg_dense_free(&cx[k]);
    }
    free(v);
}

/* A band of rows x cols: row i (none where i is a multiple of 7) holds the columns within 6 of
 * i cols / rows, so a window of 16 rows shares most of its columns (about 8 entries a distinct
 * column). */
static mg_matrix make_band(uint32_t rows, uint32_t cols, mg_values vt) {
    uint32_t *ri = malloc((size_t)rows * 13 * 4), *ci = malloc((size_t)rows * 13 * 4);
    double *vd = malloc((size_t)rows * 13 * 8);
    float *vf = malloc((size_t)rows * 13 * 4);
    uint64_t k = 0;
    for (uint32_t i = 0; i < rows; i++) {
        const int64_t mid = (int64_t)i * cols / rows;
        for (int64_t c = mid - 6; i % 7 && c <= mid + 6; c++) {
            if (c < 0 || c >= cols) continue;
            ri[k] = i;
            ci[k] = (uint32_t)c;
            vd[k] = (next_rand() % 2000) / 1000.0 - 1.0;
            vf[k] = (float)vd[k];
            k++;
        }
    }
    mg_matrix A = NULL;
    const void *v = vt == MG_VALUES_DOUBLE ? (const void *)vd : vt == MG_VALUES_FLOAT ? (const void *)vf : NULL;
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &A, rows, cols, k, ri, ci, v, vt));
    free(ri);
    free(ci);
    free(vd);
    free(vf);
    return A;
}

/* Whether a product of K float columns with tf32 (A^T with transpose) runs the TF32 windows. */
static bool takes_windows(const mg_matrix A, uint32_t K, bool transpose) {
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    o.tf32 = true;
    o.transpose = transpose;
    mg_gpu_matrix_info a;
    CHECK_OK(ctx, mg_matrix_gpu_prepare_spmm(ctx, A, K, &o, &a));
    printf("tf32 K %u%s: %s, %zu device bytes\n", K, transpose ? " A^T" : "", a.kernel, a.device_bytes);
    return strncmp(a.kernel, "tc-windows (tf32; ", 18) == 0;
}

static void tf32_case(const mg_matrix A, const char *name, mg_type t, uint32_t K, bool transpose, double alpha,
                      double beta) {
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    o.tf32 = true;
    o.transpose = transpose;
    o.alpha = alpha;
    o.beta = beta;
    spmm_run(A, name, t, K, &o);
}

/* TF32 (opts.tf32): a band of 5003 x 4100 (a part window at the end, empty rows, and 4100 rows in
 * A^T) takes the windows at K multiples of 4, for float, pattern and double values (read in float);
 * K past a multiple of 32 (36) leaves lanes without columns; alpha and beta. K 130 (not a multiple
 * of 4), double B, a matrix with rows over 128 entries and one of fewer than 4096 rows keep the
 * exact kernels (checked to float's or double's tolerance where tf32 is ignored), as does a matrix
 * of random columns, whose windows are counted and found not to pay. */
static void check_tf32(void) {
    mg_matrix A = make_band(5003, 4100, MG_VALUES_FLOAT);
    CHECK(takes_windows(A, 32, false) && takes_windows(A, 36, false) && takes_windows(A, 32, true));
    CHECK(!takes_windows(A, 130, false));
    static const uint32_t ks[] = {4, 32, 36, 64, 128, 512};
    for (int i = 0; i < (small_mode ? 3 : 6); i++) tf32_case(A, "band", MG_FLOAT, ks[i], false, 1, 0);
    tf32_case(A, "band", MG_FLOAT, 36, false, -0.5, 2);
    tf32_case(A, "band", MG_FLOAT, 64, true, 1.5, 0);
    tf32_case(A, "band", MG_FLOAT, 130, false, 1, 0);
    /* ignored for double: checked to double's tolerance */
    spmm_case(A, "band (tf32 asked, double)", MG_DOUBLE, 32, false, 1, 0);
    mg_matrix_free(&A);
    for (int p = 0; p < 2; p++) {
        A = make_band(4200, 4200, p ? MG_VALUES_DOUBLE : MG_VALUES_NONE);
        CHECK(takes_windows(A, 128, false));
        tf32_case(A, p ? "band double values" : "band pattern", MG_FLOAT, 128, false, 1, 0);
        mg_matrix_free(&A);
    }
    A = make_matrix(5000, 5000, len_12, MG_VALUES_FLOAT); /* random columns: counted, not taken */
    CHECK(!takes_windows(A, 32, false));
    tf32_case(A, "random columns", MG_FLOAT, 32, false, 1, 0);
    mg_matrix_free(&A);
    A = make_matrix(5000, 5000, len_some_long, MG_VALUES_FLOAT); /* rows to 828 entries */
    CHECK(!takes_windows(A, 32, false));
    tf32_case(A, "some long rows", MG_FLOAT, 32, false, 1, 0);
    mg_matrix_free(&A);
    A = make_band(3000, 3000, MG_VALUES_FLOAT); /* 188 windows */
    CHECK(!takes_windows(A, 32, false));
    mg_matrix_free(&A);
}

int main(void) {
    mg__gpu_info info;
    const int early = gpu_test_start(&info);
    if (early >= 0) return early;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
    CHECK_OK(ctx, mg_context_create(&cpu));
    printf("device: %s\n", info.name);

    /* 96: the row groups' lanes of 4 vectors in part past K (24 of 32 in float, 48 of 64 in double) */
    static const uint32_t all_k[] = {1, 2, 31, 32, 33, 64, 96, 128, 130, 512};
    static const uint32_t few_k[] = {1, 33, 64};
    const int n_all = small_mode ? 4 : 10;
    static const char *const split[] = {"+split"};
    static const char *const rows[] = {"+rows"};
    struct {
        const char *name;
        uint32_t rows, cols;
        uint32_t (*len)(uint32_t);
        mg_values vt;
        bool big;   /* only the small Ks */
        bool split; /* rows of more than 128 entries: the form has segments */
    } cases[] = {
        {"rect-short", 300, 517, len_3, MG_VALUES_DOUBLE, false, false},
        {"rect-short-float", 517, 300, len_3, MG_VALUES_FLOAT, false, false},
        {"pattern", 400, 400, len_12, MG_VALUES_NONE, false, false},
        {"mixed-split", 3000, 4000, len_mixed, MG_VALUES_FLOAT, true, true},
        {"dense-row", 5, 120000, len_dense_row, MG_VALUES_DOUBLE, true, true},
        {"medium-split", 700, 900, len_medium, MG_VALUES_DOUBLE, false, true},
        {"short-some-long", 2000, 2000, len_some_long, MG_VALUES_FLOAT, false, true},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (small_mode && cases[c].big && cases[c].rows > 1000) continue;
        mg_matrix A = make_matrix(cases[c].rows, cases[c].cols, cases[c].len, cases[c].vt);
        if (A == NULL) continue;
        check_prepare(A, cases[c].name, cases[c].split ? split : rows, 1, NULL);
        if (cases[c].big) sweep(A, cases[c].name, few_k, small_mode ? 1 : 3);
        else sweep(A, cases[c].name, all_k, n_all);
        if (cases[c].rows == cases[c].cols) check_chained(A, 33);
        mg_matrix_free(&A);
    }

    check_parts();
    check_long_rows_device();
    check_tf32();

    /* Generated: R-MAT (hub columns dense in a panel beside a sparse remainder), banded and
     * block-diagonal (every column of a panel dense), a 2D stencil (a column has 3 entries in a
     * panel of 64 rows: below kDenseMin, all row-wise). */
    static const char *const both[] = {"-tiles", "+rows"};
    static const char *const tiles[] = {"-tiles"};
    struct {
        const char *name;
        mg_matrix_generator kind;
        mg_values vt;
        const char *const *want;
        int nwant;
        const char *refuse;
    } gens[] = {
        {"rmat", MG_MATGEN_RMAT, MG_VALUES_FLOAT, both, 2, NULL},
        {"banded", MG_MATGEN_BANDED, MG_VALUES_DOUBLE, tiles, 1, NULL},
        {"block-diagonal", MG_MATGEN_BLOCK_DIAGONAL, MG_VALUES_NONE, tiles, 1, "+rows"},
        {"poisson2d", MG_MATGEN_POISSON2D, MG_VALUES_DOUBLE, rows, 1, "-tiles"},
    };
    static const uint32_t gen_k[] = {32, 128, 130};
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        mg_matrix_gen_options go;
        mg_matrix_gen_options_init(&go);
        go.kind = gens[g].kind;
        go.values = gens[g].vt;
        go.scale = small_mode ? 10 : 13;
        go.nnz_per_row = 8;
        go.rows = small_mode ? 1000 : 6000;
        go.side = small_mode ? 64 : 128;
        mg_matrix A = NULL;
        CHECK_OK(cpu, mg_matrix_generate(cpu, &A, &go));
        if (A == NULL) continue;
        check_prepare(A, gens[g].name, gens[g].want, gens[g].nwant, gens[g].refuse);
        sweep(A, gens[g].name, gen_k, small_mode ? 1 : 3);
        if (g == 0) check_chained(A, 128);
        mg_matrix_free(&A);
    }

    mg_context_free(&cpu);
    mg_context_free(&ctx);
    return check_report();
}
