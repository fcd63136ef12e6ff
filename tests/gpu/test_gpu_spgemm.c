/*
 * test_gpu_spgemm.c — the GPU SpGEMM (sparse/spgemm_gpu.cu) against the CPU engine and the serial
 * checker mg_check_spgemm: random rectangular matrices (empty rows and columns, 0 rows, 0 entries,
 * an empty inner dimension), row mixes whose bounds fall in every shared-memory bin, hub rows whose
 * output exceeds every bin (one shared tile, a global window, a window in pieces), masks and complemented
 * masks, the four semirings over double, float, pattern and mixed values, A*A and A*A^T (an
 * explicit transpose), triangle counts on a GPU context against a CPU one, and the error paths: a
 * dimension mismatch, a mask of the wrong shape, a product too large for the device (a clean
 * MG_OUT_OF_MEMORY saying how many bytes it needed, C left NULL). Pattern and column indices must
 * match the CPU's exactly, min-plus / max-times / or-and values bit for bit, plus-times values
 * within mg_check_spgemm's tolerance. Exits 77 (skipped) where no GPU is usable.
 */
#include "gpu/gpu_test.h"

#include <math.h>

static mg_context cpu;

/* rows x cols, row i with len(i) random entries (capped at cols), none in rows that are multiples
 * of 7 nor in columns that are multiples of 11; values in [0.5, 1.5) or, one in five, 0 (an
 * explicit zero: or-and must tell it apart). */
static mg_matrix make_matrix(uint32_t rows, uint32_t cols, uint32_t (*len)(uint32_t), mg_values vt) {
    uint64_t nnz = 0;
    for (uint32_t i = 0; i < rows; i++) nnz += i % 7 && cols > 0 ? len(i) : 0;
    uint32_t *ri = malloc(nnz * 4 + 4), *ci = malloc(nnz * 4 + 4);
    double *vd = malloc(nnz * 8 + 8);
    float *vf = malloc(nnz * 4 + 4);
    uint64_t k = 0;
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t e = 0; i % 7 && cols > 0 && e < len(i); e++, k++) {
            uint32_t c = next_rand() % cols;
            if (c % 11 == 0 && cols > 1) c = c + 1 < cols ? c + 1 : c - 1;
            ri[k] = i;
            ci[k] = c;
            vd[k] = next_rand() % 5 == 0 ? 0.0 : 0.5 + (next_rand() % 1000) / 1000.0;
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

/* A^T, made from A's CSR with rows and columns swapped. */
static mg_matrix transpose(const mg_matrix A) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    CHECK_OK(cpu, mg_matrix_csr(A, &off, &idx, &val));
    const uint32_t rows = mg_matrix_rows(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    uint32_t *ri = malloc(nnz * 4 + 4);
    for (uint32_t i = 0; i < rows; i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) ri[e] = i;
    mg_matrix T = NULL;
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &T, mg_matrix_cols(A), rows, nnz, idx, ri, val,
                                            mg_matrix_values(A)));
    free(ri);
    return T;
}

static uint32_t len_0(uint32_t i) { (void)i; return 0; }
static uint32_t len_1(uint32_t i) { return i % 3 ? 1 : 0; }
static uint32_t len_3(uint32_t i) { return 1 + i % 5; }
static uint32_t len_8(uint32_t i) { return 4 + i % 9; }
/* short rows with every 23rd of 20 to 79 entries and every 97th of 150 to 349: over B rows of
 * about 8 entries, bounds from 1 to a few thousand, every shared-memory bin */
static uint32_t len_mix(uint32_t i) { return i % 97 == 1 ? 150 + i % 200 : i % 23 == 1 ? 20 + i % 60 : 1 + i % 9; }
/* two hub rows of 2500 entries among short ones */
static uint32_t len_hub(uint32_t i) { return i == 3 || i == 150 ? 2500 : 1 + i % 4; }
/* B rows for the hub case: 20 entries over 50000 columns, one row of 30000 */
static uint32_t len_wide(uint32_t i) { return i == 8 ? 30000 : 20; }

static const char *semiring_names[] = {"plus-times", "min-plus", "max-times", "or-and"};
static const char *values_names[] = {"pattern", "float", "double"};

/* The first entry where the GPU's C (og, ig, vg) and the CPU's differ, printed with its row. */
static void print_first_difference(const char *what, const uint64_t *og, const uint32_t *ig,
                                   const void *vg, const uint64_t *oc, const uint32_t *ic,
                                   const void *vc, uint32_t rows, mg_values t) {
    for (uint32_t i = 0; i < rows; i++) {
        if (og[i + 1] - og[i] != oc[i + 1] - oc[i]) {
            fprintf(stderr, "  %s: row %u has %llu entries on the GPU, %llu on the CPU\n", what, i,
                    (unsigned long long)(og[i + 1] - og[i]), (unsigned long long)(oc[i + 1] - oc[i]));
            return;
        }
        for (uint64_t e = oc[i], d = og[i]; e < oc[i + 1]; e++, d++) {
            const double x = t == MG_VALUES_DOUBLE ? ((const double *)vg)[d]
                             : t == MG_VALUES_FLOAT ? ((const float *)vg)[d] : 1;
            const double y = t == MG_VALUES_DOUBLE ? ((const double *)vc)[e]
                             : t == MG_VALUES_FLOAT ? ((const float *)vc)[e] : 1;
            if (ig[d] != ic[e] || memcmp(&x, &y, sizeof x) != 0) {
                fprintf(stderr, "  %s: row %u: GPU (%u, %.17g), CPU (%u, %.17g)\n", what, i, ig[d],
                        x, ic[e], y);
                return;
            }
        }
    }
}

/* The GPU's C against the CPU's: the same shape, type, offsets and columns; values bit for bit but
 * for plus-times, which mg_check_spgemm judges (the sums' order differs). */
static void compare(const char *what, const mg_matrix A, const mg_matrix B, const mg_spgemm_options *o) {
    mg_matrix Cg = NULL, Cc = NULL;
    size_t device_bytes = 12345;
    mg_spgemm_options og = *o;
    og.device_bytes = &device_bytes;
    char label[256];
    snprintf(label, sizeof label, "%s, %s, mask %s", what, semiring_names[o->semiring],
             o->mask == NULL ? "none" : o->complement ? "complemented" : "M");
    mg_status st = mg_spgemm(ctx, A, B, &Cg, &og);
    CHECK_OK(ctx, st);
    CHECK_OK(cpu, mg_spgemm(cpu, A, B, &Cc, o));
    if (st != MG_SUCCESS || Cg == NULL || Cc == NULL) {
        fprintf(stderr, "  case %s\n", label);
        goto done;
    }
    const bool work = mg_matrix_rows(A) > 0 && mg_matrix_nnz(A) > 0 && mg_matrix_nnz(B) > 0;
    CHECK(work ? device_bytes > 0 : device_bytes == 0);
    const uint64_t *og_off, *oc_off;
    const uint32_t *ig, *ic;
    const void *vg, *vc;
    CHECK_OK(cpu, mg_matrix_csr(Cg, &og_off, &ig, &vg));
    CHECK_OK(cpu, mg_matrix_csr(Cc, &oc_off, &ic, &vc));
    const uint32_t rows = mg_matrix_rows(Cc);
    const uint64_t nnz = mg_matrix_nnz(Cc);
    const mg_values t = mg_matrix_values(Cc);
    const bool shape = mg_matrix_rows(Cg) == rows && mg_matrix_cols(Cg) == mg_matrix_cols(Cc) &&
                       mg_matrix_values(Cg) == t;
    CHECK(shape);
    if (!shape) {
        fprintf(stderr, "  %s: GPU %u x %u (values %d), CPU %u x %u (values %d)\n", label,
                mg_matrix_rows(Cg), mg_matrix_cols(Cg), (int)mg_matrix_values(Cg), rows,
                mg_matrix_cols(Cc), (int)t);
        goto done;
    }
    const bool same = mg_matrix_nnz(Cg) == nnz && memcmp(og_off, oc_off, ((size_t)rows + 1) * 8) == 0 &&
                      (nnz == 0 || memcmp(ig, ic, nnz * 4) == 0);
    CHECK(same);
    const bool exact = o->semiring != MG_SEMIRING_PLUS_TIMES && t != MG_VALUES_NONE;
    const bool values = !same || !exact || nnz == 0 ||
                        memcmp(vg, vc, nnz * (t == MG_VALUES_DOUBLE ? 8 : 4)) == 0;
    CHECK(values);
    if (!same || !values)
        print_first_difference(label, og_off, ig, vg, oc_off, ic, vc, rows, exact ? t : MG_VALUES_NONE);
    const mg_status checked = mg_check_spgemm(cpu, A, B, Cg, o);
    CHECK_OK(cpu, checked);
    if (checked != MG_SUCCESS) fprintf(stderr, "  case %s\n", label);
done:
    mg_matrix_free(&Cg);
    mg_matrix_free(&Cc);
}

/* Every semiring, unmasked, masked by M and by its complement (M NULL: unmasked only). */
static void compare_all(const char *what, const mg_matrix A, const mg_matrix B, const mg_matrix M) {
    for (int s = 0; s <= (int)MG_SEMIRING_OR_AND; s++)
        for (int m = 0; m < (M ? 3 : 1); m++) {
            mg_spgemm_options o;
            mg_spgemm_options_init(&o);
            o.semiring = (mg_semiring)s;
            o.mask = m ? M : NULL;
            o.complement = m == 2;
            compare(what, A, B, &o);
        }
}

static void test_shapes(void) {
    struct {
        const char *name;
        uint32_t rows, inner, cols;
        uint32_t (*alen)(uint32_t), (*blen)(uint32_t);
    } cases[] = {
        {"300x200 * 200x500", 300, 200, 500, len_3, len_8},
        {"1000x60 * 60x3000", 1000, 60, 3000, len_8, len_3},
        {"57x2000 * 2000x40", 57, 2000, 40, len_mix, len_1},
        {"bins 3000x4000 * 4000x5000", 3000, 4000, 5000, len_mix, len_8},
        {"1x1 * 1x1", 1, 1, 1, len_3, len_3},
        {"0 rows", 0, 10, 10, len_3, len_3},
        {"0 inner", 10, 0, 12, len_3, len_3},
        {"0 entries in A", 40, 30, 20, len_0, len_3},
        {"0 entries in B", 40, 30, 20, len_3, len_0},
        {"0 cols", 20, 30, 0, len_3, len_3},
    };
    /* A's and B's values: alike in each type, and the mixes (double arithmetic) on two shapes */
    static const mg_values pairs[][2] = {
        {MG_VALUES_NONE, MG_VALUES_NONE},   {MG_VALUES_FLOAT, MG_VALUES_FLOAT},
        {MG_VALUES_DOUBLE, MG_VALUES_DOUBLE}, {MG_VALUES_FLOAT, MG_VALUES_DOUBLE},
        {MG_VALUES_NONE, MG_VALUES_DOUBLE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int v = 0; v < (c < 2 ? 5 : 3); v++) {
            if (small_mode && cases[c].rows > 1000) continue;
            mg_matrix A = make_matrix(cases[c].rows, cases[c].inner, cases[c].alen, pairs[v][0]);
            mg_matrix B = make_matrix(cases[c].inner, cases[c].cols, cases[c].blen, pairs[v][1]);
            mg_matrix M = make_matrix(cases[c].rows, cases[c].cols, len_8, MG_VALUES_NONE);
            char what[160];
            snprintf(what, sizeof what, "%s, A %s, B %s", cases[c].name, values_names[pairs[v][0]],
                     values_names[pairs[v][1]]);
            if (A && B && M) compare_all(what, A, B, M);
            mg_matrix_free(&A);
            mg_matrix_free(&B);
            mg_matrix_free(&M);
        }
}

/* Hub rows of A reading 2500 B rows of 20 entries (and one of 30000): bounds far over the largest
 * shared-memory table. Over 12000 columns the range fits one shared tile; over 50000 it takes a
 * global window; over 2^27 columns a window cannot hold it (a quarter of the free memory, at most
 * 512 MiB, is 60M columns in double): the pieces path. */
static void test_hub_rows(void) {
    const uint32_t rows = small_mode ? 160 : 400, inner = 3000;
    static const uint32_t widths[] = {12000, 50000, 1u << 27};
    for (int w = 0; w < (small_mode ? 2 : 3); w++)
        for (int va = w == 2 ? 2 : 1; va < 3; va++) { /* 2^27: double only (the checks' time) */
            const uint32_t cols = widths[w], r = w == 2 ? 6 : rows;
            mg_matrix A = make_matrix(r, inner, len_hub, (mg_values)va);
            mg_matrix B = make_matrix(inner, cols, len_wide, (mg_values)va);
            mg_matrix M = make_matrix(r, cols, len_mix, MG_VALUES_NONE);
            char what[96];
            snprintf(what, sizeof what, "hub rows over %u columns, %s", cols, values_names[va]);
            if (A && B && M) compare_all(what, A, B, M);
            mg_matrix_free(&A);
            mg_matrix_free(&B);
            mg_matrix_free(&M);
        }
}

/* Rows whose products all miss their mask row (C<M>: empty; C<!M>: everything): row 0 reads B's
 * row of columns 0..19999 (a global window with the complement) under a mask row 30000..30010,
 * beside it; row 1 B's row of columns 20, 40 and 60 under 25..35, inside its range. */
static void test_mask_outside(void) {
    enum { N = 20000 + 3 + 11 + 6 };
    uint32_t ri[N], ci[N];
    double v[N];
    uint32_t k = 0;
    for (uint32_t j = 0; j < 20000; j++, k++) ri[k] = 0, ci[k] = j, v[k] = 1 + j % 7;
    for (uint32_t j = 0; j < 3; j++, k++) ri[k] = 1, ci[k] = 20 + 20 * j, v[k] = 2;
    const uint32_t nb = k;
    mg_matrix A = NULL, B = NULL, M = NULL;
    const uint32_t ar[2] = {0, 1}, ac[2] = {0, 1};
    const double av[2] = {0.5, 3};
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &A, 2, 2, 2, ar, ac, av, MG_VALUES_DOUBLE));
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &B, 2, 40000, nb, ri, ci, v, MG_VALUES_DOUBLE));
    k = 0;
    for (uint32_t j = 30000; j <= 30010; j++, k++) ri[k] = 0, ci[k] = j;
    for (uint32_t j = 25; j <= 35; j++, k++) ri[k] = 1, ci[k] = j;
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &M, 2, 40000, k, ri, ci, NULL, MG_VALUES_NONE));
    if (A && B && M) compare_all("products outside the mask rows", A, B, M);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    mg_matrix_free(&M);
}

/* A*A and A*A^T of square random matrices and a generated R-MAT one (hub rows of its own). */
static void test_square(void) {
    mg_matrix_gen_options go;
    mg_matrix_gen_options_init(&go);
    go.kind = MG_MATGEN_RMAT;
    go.scale = small_mode ? 9 : 12;
    go.nnz_per_row = 8;
    for (int k = 0; k < 3; k++) {
        mg_matrix A = NULL;
        if (k < 2) {
            A = make_matrix(2000, 2000, k ? len_mix : len_8, k ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE);
        } else {
            go.values = MG_VALUES_DOUBLE;
            CHECK_OK(cpu, mg_matrix_generate(cpu, &A, &go));
        }
        if (A == NULL) continue;
        mg_matrix T = transpose(A);
        if (T != NULL) {
            compare_all(k == 2 ? "R-MAT A*A" : "A*A", A, A, A);
            compare_all(k == 2 ? "R-MAT A*A^T" : "A*A^T", A, T, NULL);
        }
        mg_matrix_free(&T);
        mg_matrix_free(&A);
    }
}

/* Triangles on a GPU context (mg_triangle_count over the masked SpGEMM) against a CPU context. */
static void test_triangles(void) {
    const mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        mg_gen_options go;
        mg_gen_options_init(&go);
        go.kind = kinds[k];
        go.scale = small_mode ? 10 : 14;
        go.edge_factor = 8;
        mg_graph gg = NULL, gc = NULL;
        mg_vector tg = NULL, tc = NULL;
        CHECK_OK(ctx, mg_generate(ctx, &gg, &go));
        CHECK_OK(cpu, mg_generate(cpu, &gc, &go));
        if (gg == NULL || gc == NULL) goto next;
        CHECK_OK(ctx, mg_vector_create(ctx, &tg, gg, MG_INT64));
        CHECK_OK(cpu, mg_vector_create(cpu, &tc, gc, MG_INT64));
        if (tg == NULL || tc == NULL) goto next;
        uint64_t total_g = 0, total_c = 0;
        CHECK_OK(ctx, mg_triangle_count(ctx, gg, &total_g, tg));
        CHECK_OK(cpu, mg_triangle_count(cpu, gc, &total_c, tc));
        CHECK(total_g == total_c);
        CHECK(kinds[k] == MG_GEN_UNIFORM || total_c > 0);
        const uint32_t n = mg_graph_num_vertices(gc);
        int64_t *vg = malloc((size_t)n * 8 + 8), *vc = malloc((size_t)n * 8 + 8);
        CHECK_OK(ctx, mg_vector_extract(ctx, tg, vg));
        CHECK_OK(cpu, mg_vector_extract(cpu, tc, vc));
        CHECK(memcmp(vg, vc, (size_t)n * 8) == 0);
        CHECK_OK(cpu, mg_check_triangle_count(cpu, gc, total_g, tc));
        printf("triangles (generator %d): %llu on the GPU, %llu on the CPU\n", (int)kinds[k],
               (unsigned long long)total_g, (unsigned long long)total_c);
        free(vg);
        free(vc);
    next:
        mg_vector_free(&tg);
        mg_vector_free(&tc);
        mg_graph_free(&gg);
        mg_graph_free(&gc);
    }
}

static void expect_error(mg_status st, mg_status want, const char *text, const mg_matrix C) {
    CHECK(st == want);
    CHECK(strstr(mg_context_error(ctx), text) != NULL);
    CHECK(C == NULL);
    if (st != want || strstr(mg_context_error(ctx), text) == NULL)
        fprintf(stderr, "  got %s: %s (wanted \"%s\")\n", mg_status_string(st), mg_context_error(ctx), text);
}

static void test_errors(void) {
    mg_matrix A = make_matrix(4, 5, len_3, MG_VALUES_DOUBLE);
    mg_matrix B = make_matrix(7, 3, len_3, MG_VALUES_DOUBLE);
    mg_matrix B5 = make_matrix(5, 3, len_3, MG_VALUES_DOUBLE);
    mg_matrix M = make_matrix(4, 4, len_3, MG_VALUES_NONE);
    mg_matrix C = NULL;
    mg_status st = mg_spgemm(ctx, A, B, &C, NULL);
    expect_error(st, MG_INVALID_ARGUMENT, "mg_spgemm: A has 5 columns but B has 7 rows", C);
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    o.mask = M;
    st = mg_spgemm(ctx, A, B5, &C, &o);
    expect_error(st, MG_INVALID_ARGUMENT, "mg_spgemm: opts->mask is 4 x 4 but C = A B is 4 x 3", C);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    mg_matrix_free(&B5);
    mg_matrix_free(&M);
}

/* n x 1 times 1 x n, both dense: C is n^2 = 1.7e10 double entries (206 GB), more than any device
 * here holds: MG_OUT_OF_MEMORY naming the bytes, opts->device_bytes saying at least C's, C NULL.
 * The symbolic pass counts past 2^32 entries on the way (C's 64-bit offsets). */
static void test_too_large(void) {
    const uint32_t n = 1u << 17;
    uint32_t *ri = malloc((size_t)n * 4), *zi = calloc(n, 4);
    double *v = malloc((size_t)n * 8);
    for (uint32_t i = 0; i < n; i++) {
        ri[i] = i;
        v[i] = 1.0;
    }
    mg_matrix A = NULL, B = NULL, C = NULL;
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &A, n, 1, n, ri, zi, v, MG_VALUES_DOUBLE));
    CHECK_OK(cpu, mg_matrix_create_from_coo(cpu, &B, 1, n, n, zi, ri, v, MG_VALUES_DOUBLE));
    size_t need = 0;
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    o.device_bytes = &need;
    const mg_status st = mg_spgemm(ctx, A, B, &C, &o);
    expect_error(st, MG_OUT_OF_MEMORY, "bytes of device memory", C);
    CHECK(strstr(mg_context_error(ctx), "C's 17179869184 entries") != NULL);
    CHECK(need >= (size_t)n * n * 12);
    printf("too large: %s\n", mg_context_error(ctx));
    /* the device is still usable afterwards */
    mg_matrix S = make_matrix(50, 50, len_3, MG_VALUES_DOUBLE);
    if (S != NULL) compare_all("after the failed product", S, S, NULL);
    mg_matrix_free(&S);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    free(ri);
    free(zi);
    free(v);
}

int main(void) {
    mg__gpu_info info;
    const int early = gpu_test_start(&info);
    if (early >= 0) return early;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
    CHECK_OK(ctx, mg_context_create(&cpu));
    printf("device: %s\n", info.name);
    test_shapes();
    test_hub_rows();
    test_mask_outside();
    test_square();
    test_triangles();
    test_errors();
    if (!small_mode) test_too_large();
    mg_context_free(&cpu);
    mg_context_free(&ctx);
    return check_report();
}
